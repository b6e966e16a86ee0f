#include <bgtask/cli/command_line.hpp>
#include <bgtask/cli/console.hpp>
#include <bgtask/cli/record_view.hpp>
#include <bgtask/cli/task_selection.hpp>
#include <bgtask/commands/commands.hpp>
#include <bgtask/core/record_json.hpp>
#include <bgtask/exec/executors.hpp>
#include <bgtask/store/output_file.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/terminal_escape.hpp>
#include <bgtask/util/utf8.hpp>

#include <boost/json.hpp>

#include <algorithm>
#include <iostream>

namespace bgtask {

namespace {

std::string output_tail(const TaskDir& dir, const std::string& id, std::size_t tail)
{
  const auto fd = open_output_file(dir, id);
  return fd && tail > 0 ? read_last_lines(fd.get(), tail) : std::string();
}

void print_text(const TaskDir& dir, const TaskRecord& record, std::size_t tail)
{
  std::cout << status_text(record);
  const std::string lines = output_tail(dir, record.id, tail);
  if (!lines.empty()) {
    std::cout << "--- last " << tail << " lines of output ---\n"
              << for_stdout(lines) << (lines.back() == '\n' ? "" : "\n");
  }
}

// The IDs the command line names: each reference looked up on its own (an
// unknown one is reported on stderr and sets `status`), then --name/--queue.
std::vector<std::string> chosen_ids(const TaskDir& dir, const po::variables_map& vm,
                                    const std::vector<std::string>& references, int& status)
{
  std::vector<std::string> ids;
  for (const auto& reference : references) {
    auto found = look_up_task_id(dir, reference);
    if (!found.id) {
      std::cerr << "bgtask: error: " << escape_for_terminal(found.problem, KeepNewlines::no)
                << '\n';
      status = static_cast<int>(ExitCode::usage);
    } else if (std::find(ids.begin(), ids.end(), *found.id) == ids.end()) {
      ids.push_back(std::move(*found.id));
    }
  }
  if (selects_by_record(vm)) {
    for (auto& id : select_tasks(dir, vm, {})) {
      if (std::find(ids.begin(), ids.end(), id) == ids.end()) {
        ids.push_back(std::move(id));
      }
    }
  }
  return ids;
}

} // namespace

po::options_description status_options()
{
  po::options_description options;
  options.add_options()("json", "print a JSON array of records")(
    "tail", po::value<std::string>(),
    "show the last N lines of output (default 10; 0 for none; with --json: as output_tail)");
  add_selection_options(options);
  return options;
}

int run_status(const GlobalOptions& global, const CommandArgs& args)
{
  const auto& vm = args.options;
  const auto tail_text = optional_value<std::string>(vm, "tail");
  const std::size_t tail = tail_text ? value_or_usage(parse_count(*tail_text, "--tail")) : 10;
  const bool json = vm.count("json") != 0;
  if (args.operands.empty() && !selects_by_record(vm)) {
    throw_usage(
      "bgtask status: give at least one task ID (or @), --name N, --all-named N or --queue Q");
  }
  const TaskDir dir = open_task_dir_to_read(global);
  int status = 0;
  const auto ids = chosen_ids(dir, vm, args.operands, status);
  boost::json::array array;
  std::vector<LoadedRecord> loaded_records;
  std::vector<TaskRecord> records;
  for (const auto& id : ids) {
    loaded_records.push_back(load_record(dir, id));
    if (loaded_records.back().status == LoadStatus::ok) {
      records.push_back(std::move(loaded_records.back().record));
    }
  }
  // One batch, so that Slurm's controller is asked once, not once per task.
  reconcile_records(dir, records);
  auto next = records.begin();
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const auto& loaded = loaded_records[i];
    if (loaded.status != LoadStatus::ok) {
      const std::string reason =
        loaded.status == LoadStatus::missing ? "record disappeared" : loaded.reason;
      status = static_cast<int>(ExitCode::failure);
      std::cerr << "bgtask: error: record of task " << ids[i] << " is corrupt: " << reason << '\n';
      if (json) {
        auto object = corrupt_record_to_json(ids[i], reason);
        if (tail_text) {
          object.as_object()["output_tail"] = to_valid_utf8(output_tail(dir, ids[i], tail));
        }
        array.push_back(std::move(object));
      }
      continue;
    }
    const TaskRecord record = std::move(*next++);
    // No output file and no record: `cleanup` removed the task meanwhile (the
    // record goes first), and nothing is missing.
    const UniqueFd output = open_output_file(dir, record.id);
    const bool removed = !output && load_record(dir, record.id).status == LoadStatus::missing;
    if (!removed && !warn_if_output_incomplete(output.get(), record)) {
      status = static_cast<int>(ExitCode::failure);
    }
    if (json) {
      auto object = record_to_json(record);
      if (tail_text) {
        object.as_object()["output_tail"] = to_valid_utf8(output_tail(dir, record.id, tail));
      }
      array.push_back(std::move(object));
    } else {
      if (i > 0) {
        std::cout << '\n';
      }
      print_text(dir, record, tail);
    }
  }
  if (json) {
    print_json(array);
  }
  return status;
}

} // namespace bgtask
