#include <bgtask/cli/command_line.hpp>
#include <bgtask/cli/console.hpp>
#include <bgtask/cli/record_view.hpp>
#include <bgtask/commands/commands.hpp>
#include <bgtask/core/record_json.hpp>
#include <bgtask/exec/task_cancel.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/util/error.hpp>

#include <iostream>

namespace bgtask {

po::options_description cancel_options()
{
  po::options_description options;
  options.add_options()("grace", po::value<std::string>(),
                        "time between TERM and KILL (default: the task's --grace)")(
    "json", "print a JSON array of the final records")("quiet,q", "print nothing on success");
  return options;
}

int run_cancel(const GlobalOptions& global, const CommandArgs& args)
{
  const auto& vm = args.options;
  const auto& prefixes = args.operands;
  std::optional<Milliseconds> grace;
  if (auto text = optional_value<std::string>(vm, "grace")) {
    grace = parse_duration(*text);
  }
  const TaskDir dir = TaskDir::open(TaskDir::resolve_path(global.dir));
  const auto ids = resolve_task_ids(dir, prefixes);
  const CancelResult result = cancel_tasks(dir, ids, grace);

  if (vm.count("json") != 0) {
    print_json(records_to_json(result.records));
    return 0;
  }
  if (vm.count("quiet") != 0) {
    return 0;
  }
  for (std::size_t i = 0; i < ids.size(); ++i) {
    std::cout << ids[i] << ' ' << (result.was_final[i] ? "already " : "")
              << for_stdout(state_text(result.records[i])) << '\n';
  }
  return 0;
}

} // namespace bgtask
