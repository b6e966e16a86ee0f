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

namespace {

constexpr CommandSyntax k_syntax{
  "cancel", "ID... [--grace DUR] [--json] [--quiet]",
  "Stops running tasks: TERM to the command's process group and descendants, KILL after\n"
  "the grace period (default: the task's own, from `start --grace`, else 5s). Returns once\n"
  "each final record is written. Cancelling a finished task changes nothing and is not an\n"
  "error. A Slurm task is cancelled with scancel (Slurm's KillWait applies instead)."};

} // namespace

int run_cancel(const GlobalOptions& global, const std::vector<std::string>& args)
{
  po::options_description options("Options");
  options.add_options()("grace", po::value<std::string>(),
                        "time between TERM and KILL (default: the task's --grace)")(
    "json", "print a JSON array of the final records")("quiet,q", "print nothing on success");
  const auto parsed = parse_id_command_line(k_syntax, options, IdCount::many, args);
  if (!parsed) {
    return 0;
  }
  const auto& vm = parsed->vm;
  const auto& prefixes = parsed->ids;
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
