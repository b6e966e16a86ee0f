#include <bgtask/cli/command_line.hpp>
#include <bgtask/cli/start_options.hpp>
#include <bgtask/commands/commands.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/util/error.hpp>

#include <iostream>

namespace bgtask {

namespace {

constexpr CommandSyntax k_syntax{
  "start",
  "[--name N] [--cwd DIR] [--env K=V|NAME]... [--env-file FILE] [--timeout DUR] [--grace DUR] "
  "[--max-output SIZE] [--queue Q [--slots N]] [--after ID[,ID...]] [--dedupe] [--max-running N] "
  "[--retry N [--retry-delay DUR] [--retry-on CODES|timed_out]] [--memory-max SIZE] "
  "[--pids-max N] [--cpu-max CPUS] [--on-exit 'SHELL STRING'] "
  "(-- CMD [ARG...] | -c 'SHELL STRING')",
  "Starts a command in the background and prints its task ID once the task is running\n"
  "(or queued). `-- CMD ARGS` runs argv directly; `-c STRING` runs it with /bin/sh -c."};

} // namespace

int run_start(const GlobalOptions& global, const std::vector<std::string>& args)
{
  auto [own, command] = split_at_separator(args);
  po::options_description options("Options");
  add_start_options(options);
  const auto vm = parse_command_line(k_syntax, options, {}, own);
  if (!vm) {
    return 0;
  }
  StartPlan plan = build_start_plan(*vm, std::move(command));
  const TaskDir dir = TaskDir::open(TaskDir::resolve_path(global.dir));
  const StartResult result = start_task(dir, std::move(plan));
  if (result.launch.exit_code != 0 && load_record(dir, result.id).status == LoadStatus::missing) {
    throw Error(ExitCode::failure, "cannot start the task: " + result.launch.error);
  }
  std::cout << result.id << std::endl;
  if (!std::cout) {
    throw Error(ExitCode::failure,
                "task " + result.id +
                  " started, but its ID could not be written to standard output");
  }
  if (result.launch.exit_code != 0) {
    throw Error(static_cast<ExitCode>(result.launch.exit_code),
                "task " + result.id + " failed to start: " + result.launch.error);
  }
  return 0;
}

} // namespace bgtask
