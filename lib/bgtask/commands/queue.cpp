#include <bgtask/cli/command_line.hpp>
#include <bgtask/cli/console.hpp>
#include <bgtask/commands/commands.hpp>
#include <bgtask/exec/executors.hpp>
#include <bgtask/proc/environment.hpp>
#include <bgtask/store/queue_settings.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/split.hpp>
#include <bgtask/util/table.hpp>

#include <boost/json.hpp>

#include <algorithm>
#include <cctype>
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

// The names of `--slots a,b,c`: each 1 to 64 characters of
// `A-Z a-z 0-9 _ . : -`, none twice. Throws Error(usage).
std::vector<std::string> slot_names_or_usage(const std::string& text)
{
  std::vector<std::string> names;
  for (const auto part : split(text, ',', EmptyParts::keep)) {
    const bool valid =
      !part.empty() && part.size() <= 64 && std::all_of(part.begin(), part.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.' ||
               c == ':' || c == '-';
      });
    if (!valid) {
      throw_usage("--slots: a slot name is 1 to 64 characters of A-Z a-z 0-9 _ . : -");
    }
    if (std::find(names.begin(), names.end(), part) != names.end()) {
      throw_usage("--slots: slot " + std::string(part) + " is named twice");
    }
    names.emplace_back(part);
  }
  return names;
}

} // namespace

po::options_description queue_options()
{
  po::options_description options;
  options.add_options()("slots", po::value<std::string>()->value_name("N|NAMES"),
                        "let N of the queue's tasks run at once (0 pauses the queue); or name "
                        "each slot (0,1,2,3): a task sees its slot's name in BGTASK_SLOT")(
    "slot-env", po::value<std::string>()->value_name("VAR"),
    "also give a running task its slot's name in VAR (CUDA_VISIBLE_DEVICES)")(
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
  std::optional<SlotNaming> naming;
  if (auto text = optional_value<std::string>(vm, "slots")) {
    if (!name) {
      throw_usage("bgtask queue: --slots needs a queue name");
    }
    if (text->find(',') != std::string::npos) {
      naming = SlotNaming{slot_names_or_usage(*text), std::nullopt};
      slots = naming->names.size();
    } else {
      slots = value_or_usage(parse_count(*text, "--slots"));
    }
    if (*slots > k_max_queue_slots) {
      throw_usage("--slots must be at most " + std::to_string(k_max_queue_slots));
    }
  }
  const auto slot_env = optional_value<std::string>(vm, "slot-env");
  if (slot_env && (!name || !is_env_name(*slot_env))) {
    throw_usage(name ? "--slot-env needs a variable name (letters, digits, _)"
                     : "bgtask queue: --slot-env needs a queue name");
  }
  const TaskDir dir = open_task_dir(global);
  if (slots || slot_env) {
    SlotNaming stored = load_slot_naming(dir, *name);
    SlotNaming next = naming ? *naming : stored;
    next.env = slot_env ? slot_env : stored.env;
    save_queue_settings(dir, *name, slots.value_or(slots_of(load_queue_settings(dir, *name))),
                        next);
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
