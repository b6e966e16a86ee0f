#include <bgtask/cli/command_line.hpp>
#include <bgtask/cli/console.hpp>
#include <bgtask/cli/record_view.hpp>
#include <bgtask/cli/task_selection.hpp>
#include <bgtask/commands/commands.hpp>
#include <bgtask/core/exit_status.hpp>
#include <bgtask/core/record_json.hpp>
#include <bgtask/exec/task_waiter.hpp>
#include <bgtask/proc/interrupts.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/util/error.hpp>

#include <algorithm>
#include <csignal>
#include <cstring>
#include <iostream>

namespace bgtask {

namespace {

constexpr CommandSyntax k_syntax{
  "wait", "[ID...] [--name N] [--queue Q] [--timeout DUR] [--any] [--json] [--quiet]",
  "Waits until every task (with --any: the first) has finished, then exits with the tasks'\n"
  "status: 0 only if every task succeeded. Exits 4 if --timeout passes first and 5 on\n"
  "Ctrl-C (SIGINT, SIGTERM, SIGHUP); the tasks run on. --name and --queue add every task\n"
  "with that name or of that queue. The exit codes: man bgtask, EXIT STATUS."};

} // namespace

int run_wait(const GlobalOptions& global, const std::vector<std::string>& args)
{
  po::options_description options("Options");
  options.add_options()("timeout", po::value<std::string>(),
                        "give up after DUR and exit 4 (the tasks run on)")(
    "any", "return as soon as one of the tasks has finished")(
    "json", "print a JSON array of the records")("quiet,q",
                                                 "print no line per task; the exit status tells");
  add_selection_options(options);
  const auto parsed = parse_id_command_line(k_syntax, options, IdCount::any, args);
  if (!parsed) {
    return 0;
  }
  const auto& vm = parsed->vm;
  const auto& prefixes = parsed->ids;
  std::optional<Milliseconds> limit;
  if (auto text = optional_value<std::string>(vm, "timeout")) {
    limit = parse_duration(*text);
  }
  const WaitMode mode = vm.count("any") != 0 ? WaitMode::any : WaitMode::all;
  const TaskDir dir = TaskDir::open(TaskDir::resolve_path(global.dir));
  const auto ids = select_tasks(dir, vm, prefixes);

  catch_interrupts({SIGINT, SIGTERM, SIGHUP});
  const WaitResult result = wait_for_tasks(dir, ids, mode, limit, Interrupts::end_wait);
  if (vm.count("json") != 0) {
    print_json(records_to_json(result.records));
  } else if (vm.count("quiet") == 0) {
    for (const auto& record : result.records) {
      std::cout << record.id << ' ' << for_stdout(state_text(record)) << '\n';
    }
  }
  if (result.end == WaitEnd::gave_up) {
    std::cerr << "bgtask: wait gave up after " << format_duration(*limit)
              << "; the tasks still run\n";
    return static_cast<int>(ExitCode::wait_gave_up);
  }
  if (result.end == WaitEnd::interrupted) {
    std::cerr << "bgtask: wait interrupted by SIG" << sigabbrev_np(interrupt_signal())
              << "; the tasks still run\n";
    return static_cast<int>(ExitCode::interrupted);
  }
  if (mode == WaitMode::any) {
    const auto first = std::find_if(result.records.begin(), result.records.end(),
                                    [](const TaskRecord& r) { return is_final(r.state); });
    return exit_status_of(*first);
  }
  return combined_exit_status(result.records);
}

} // namespace bgtask
