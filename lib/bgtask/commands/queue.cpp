#include <bgtask/cli/command_line.hpp>
#include <bgtask/cli/console.hpp>
#include <bgtask/commands/commands.hpp>
#include <bgtask/exec/executors.hpp>
#include <bgtask/store/queue_settings.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/table.hpp>

#include <boost/json.hpp>

#include <iostream>
#include <map>

namespace bgtask {

namespace {

struct QueueView
{
  QueueSettings settings{std::nullopt};
  std::vector<std::string> running;
  std::vector<std::string> queued; // oldest first
};

// Every queue with a settings file or an unfinished task, or only `only`.
std::map<std::string, QueueView> collect(const TaskDir& dir, const std::optional<std::string>& only)
{
  std::map<std::string, QueueView> queues;
  if (only) {
    queues[*only];
  } else {
    for (const auto& name : scan_queue_names(dir)) {
      queues[name];
    }
  }
  const auto unfinished = load_unfinished_records(
    dir, [&](const TaskRecord& r) { return r.queue && (!only || r.queue == only); });
  for (const auto& record : unfinished) {
    auto& view = queues[*record.queue];
    if (record.state == TaskState::running) {
      view.running.push_back(record.id);
    } else if (record.state == TaskState::queued) {
      view.queued.push_back(record.id);
    }
  }
  for (auto& [name, view] : queues) {
    view.settings = load_queue_settings(dir, name);
  }
  return queues;
}

boost::json::array ids_to_json(const std::vector<std::string>& ids)
{
  boost::json::array array;
  for (const auto& id : ids) {
    array.emplace_back(id);
  }
  return array;
}

std::string slots_text(const QueueSettings& settings)
{
  std::string text = std::to_string(slots_of(settings));
  if (!settings) {
    text += " (settings file unusable: " + settings.error() + ")";
  } else if (!*settings) {
    text += " (default)";
  }
  return text;
}

} // namespace

po::options_description queue_options()
{
  po::options_description options;
  options.add_options()("slots", po::value<std::string>()->value_name("N"),
                        "let N of the queue's tasks run at once (0 pauses the queue)")(
    "json", "print a JSON array of queues");
  return options;
}

int run_queue(const GlobalOptions& global, const CommandArgs& args)
{
  const auto& vm = args.options;
  const std::optional<std::string> name =
    args.operands.empty() ? std::nullopt : std::optional(args.operands.front());
  if (name) {
    check_queue_name(*name);
  }
  std::optional<std::size_t> slots;
  if (auto text = optional_value<std::string>(vm, "slots")) {
    if (!name) {
      throw_usage("bgtask queue: --slots needs a queue name");
    }
    slots = value_or_usage(parse_count(*text, "--slots"));
    if (*slots > k_max_queue_slots) {
      throw_usage("--slots must be at most " + std::to_string(k_max_queue_slots));
    }
  }
  const TaskDir dir = open_task_dir(global);
  if (slots) {
    save_queue_settings(dir, *name, *slots);
    admit_waiting_tasks(dir); // more slots: tasks of its line may start
  }
  const auto queues = collect(dir, name);

  if (vm.count("json") != 0) {
    boost::json::array array;
    for (const auto& [queue, view] : queues) {
      boost::json::object o;
      o["queue"] = queue;
      o["slots"] = slots_of(view.settings);
      o["slots_stored"] = view.settings && view.settings->has_value();
      o["settings_error"] =
        !view.settings ? boost::json::value(view.settings.error()) : boost::json::value(nullptr);
      o["running"] = ids_to_json(view.running);
      o["queued"] = ids_to_json(view.queued);
      array.emplace_back(std::move(o));
    }
    print_json(array);
    return 0;
  }
  if (name) {
    const auto& view = queues.at(*name);
    std::cout << "queue    " << *name << '\n'
              << "slots    " << for_stdout(slots_text(view.settings)) << '\n';
    for (const auto& id : view.running) {
      std::cout << "running  " << id << '\n';
    }
    for (const auto& id : view.queued) {
      std::cout << "queued   " << id << '\n';
    }
    return 0;
  }
  std::vector<TableRow> rows;
  rows.reserve(queues.size());
  for (const auto& [queue, view] : queues) {
    rows.push_back({queue, std::to_string(slots_of(view.settings)),
                    std::to_string(view.running.size()), std::to_string(view.queued.size())});
  }
  std::cout << render_table({"QUEUE", "SLOTS", "RUNNING", "QUEUED"}, rows);
  return 0;
}

} // namespace bgtask
