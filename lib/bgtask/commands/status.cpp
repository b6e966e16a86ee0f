#include <bgtask/cli/command_line.hpp>
#include <bgtask/cli/console.hpp>
#include <bgtask/cli/record_view.hpp>
#include <bgtask/commands/commands.hpp>
#include <bgtask/core/record_json.hpp>
#include <bgtask/exec/executors.hpp>
#include <bgtask/store/output_file.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/util/error.hpp>

#include <boost/json.hpp>

#include <iostream>

namespace bgtask {

namespace {

void print_text(const TaskDir& dir, const TaskRecord& record, std::size_t tail)
{
  std::cout << status_text(record);
  if (tail == 0) {
    return;
  }
  const auto fd = open_output_file(dir, record.id);
  if (!fd) {
    return;
  }
  const std::string lines = read_last_lines(fd.get(), tail);
  if (!lines.empty()) {
    std::cout << "--- last " << tail << " lines of output ---\n"
              << for_stdout(lines) << (lines.back() == '\n' ? "" : "\n");
  }
}

} // namespace

po::options_description status_options()
{
  po::options_description options;
  options.add_options()("json", "print a JSON array of records")(
    "tail", po::value<std::string>(), "show the last N lines of output (default 10)");
  return options;
}

int run_status(const GlobalOptions& global, const CommandArgs& args)
{
  const auto& vm = args.options;
  const auto& prefixes = args.operands;
  const auto tail_text = optional_value<std::string>(vm, "tail");
  const std::size_t tail = tail_text ? parse_count(*tail_text, "--tail") : 10;
  const bool json = vm.count("json") != 0;
  const TaskDir dir = TaskDir::open(TaskDir::resolve_path(global.dir));

  const auto ids = resolve_task_ids(dir, prefixes);
  int status = 0;
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
        array.push_back(corrupt_record_to_json(ids[i], reason));
      }
      continue;
    }
    const TaskRecord record = std::move(*next++);
    if (json) {
      array.push_back(record_to_json(record));
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
