#include <bgtask/cli/command_line.hpp>
#include <bgtask/cli/condition_json.hpp>
#include <bgtask/cli/console.hpp>
#include <bgtask/cli/record_view.hpp>
#include <bgtask/cli/task_selection.hpp>
#include <bgtask/commands/commands.hpp>
#include <bgtask/core/exit_status.hpp>
#include <bgtask/core/record_json.hpp>
#include <bgtask/exec/condition_wait.hpp>
#include <bgtask/exec/task_waiter.hpp>
#include <bgtask/exec/task_watcher.hpp>
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

// The condition the options ask for, or nullopt if they ask for none.
std::optional<WaitCondition> condition_from(const po::variables_map& vm)
{
  WaitCondition condition;
  if (const auto pattern = optional_value<std::string>(vm, "until-output")) {
    condition.until_output = compile_output_pattern(*pattern, "--until-output");
  }
  if (const auto port = optional_value<std::string>(vm, "until-port")) {
    const std::size_t value = value_or_usage(parse_count(*port, "--until-port"));
    if (value < 1 || value > 65535) {
      throw_usage("--until-port: expected a TCP port, 1 to 65535");
    }
    condition.until_port = static_cast<std::uint16_t>(value);
  }
  condition.idle = optional_duration(vm, "idle");
  if (condition.until_output && condition.until_port) {
    throw_usage("--until-output and --until-port exclude each other");
  }
  if (!condition.until_output && !condition.until_port && !condition.idle) {
    return std::nullopt;
  }
  return condition;
}

// wait ID --until-output/--until-port/--idle: prints the matching line (or
// the JSON), exits 0, 6 (ended first), 7 (idle), 4 or 5.
int wait_for(const TaskDir& dir, const std::string& id, const WaitCondition& condition,
             std::optional<Milliseconds> limit, const po::variables_map& vm)
{
  const ConditionResult result =
    wait_for_condition(dir, id, condition, limit, Interrupts::end_wait);
  if (vm.count("json") != 0) {
    print_json(condition_result_to_json(result));
  } else if (vm.count("quiet") == 0) {
    if (result.end == ConditionEnd::met && condition.until_output) {
      std::cout << for_stdout(result.line) << '\n';
    } else {
      std::cout << id << ' ' << for_stdout(state_text(result.record)) << '\n';
    }
  }
  // Output still empty from a task that runs: often a program that
  // block-buffers stdout into a file, not one that is quiet.
  const auto buffering_hint = [&] {
    if (result.offset == 0 && !is_final(result.record.state)) {
      std::cerr << "bgtask: its output is still empty: the command may buffer what it writes "
                   "to a file (PYTHONUNBUFFERED=1, stdbuf -oL, or start it with --pty)\n";
    }
  };
  switch (result.end) {
  case ConditionEnd::met:
    return 0;
  case ConditionEnd::idle:
    std::cerr << "bgtask: " << id << " printed nothing for " << format_duration(result.quiet_for)
              << "; it still runs\n";
    buffering_hint();
    return static_cast<int>(ExitCode::idle);
  case ConditionEnd::task_ended:
    std::cerr << "bgtask: " << id << " ended (" << state_text(result.record) << ") before "
              << (condition.until_port ? "listening on the port" : "a matching line") << '\n';
    return static_cast<int>(ExitCode::condition_unmet);
  case ConditionEnd::gave_up:
    std::cerr << "bgtask: wait gave up after " << format_duration(*limit)
              << "; the task still runs\n";
    buffering_hint();
    return static_cast<int>(ExitCode::wait_gave_up);
  case ConditionEnd::interrupted:
    break;
  }
  std::cerr << "bgtask: wait interrupted by SIG" << sigabbrev_np(interrupt_signal())
            << "; the task still runs\n";
  return static_cast<int>(ExitCode::interrupted);
}

} // namespace

po::options_description wait_options()
{
  po::options_description options;
  options.add_options()("timeout", po::value<std::string>(),
                        "give up after DUR and exit 4 (the tasks run on)\n"
                        "Ctrl-C (SIGINT), SIGTERM and SIGHUP end the wait with exit 5; the "
                        "tasks keep running too.")(
    "any", "return as soon as one of the tasks has finished")(
    "json", "print a JSON array of the records")("quiet,q",
                                                 "print no line per task; the exit status tells")(
    "until-output", po::value<std::string>()->value_name("REGEX"),
    "return (0) once a line of output matches REGEX; 6 if the task ends first\n"
    "One task only (a single ID). RE2 syntax, searched anywhere in the line, with escape "
    "sequences removed as in `output --json`; lines already written count, a line that arrives "
    "in several writes is matched once it is complete, and a last line without a newline "
    "counts once the task has finished. Matching takes time linear in the line (no "
    "back-references or lookaround; a pattern of more than 2000 instructions compiled is "
    "refused with exit 2). A long line is matched in windows that overlap by half (256 KiB "
    "for most patterns, down to 4 KiB for the largest): a match of up to half a window is "
    "found anywhere in a line of any length, its tail (the last state of a `\\r` progress "
    "bar) included. Prints the line (with `--json`: `{id, state, exit_code, end, line, "
    "cursor, quiet_s}`, where `cursor` is the output cursor just after the line); the task "
    "runs on.")(
    "until-port", po::value<std::string>()->value_name("PORT"),
    "return (0) once a process of the task listens on TCP PORT; 6 if it ends first\n"
    "A process of the task is one carrying its `BGTASK_ID`, its command, or a descendant of "
    "its supervisor; the socket, IPv4 or IPv6, is found through `/proc/net/tcp` and "
    "`/proc/net/tcp6`, checked on every wake-up and at least every second.")(
    "idle", po::value<std::string>()->value_name("DUR"),
    "return (7) once the running task has printed nothing for DUR; 6 if it ends first\n"
    "Counted from the output file's modification time, so a task that was already quiet "
    "returns at once. Combines with `--until-output` or `--until-port` (whichever comes "
    "first: ready or stuck).");
  add_selection_options(options);
  return options;
}

int run_wait(const GlobalOptions& global, const CommandArgs& args)
{
  const auto& vm = args.options;
  const auto& prefixes = args.operands;
  const std::optional<Milliseconds> limit = optional_duration(vm, "timeout");
  const WaitMode mode = vm.count("any") != 0 ? WaitMode::any : WaitMode::all;
  const auto condition = condition_from(vm);
  if (condition && (prefixes.size() != 1 || vm.count("any") != 0 || selects_by_record(vm))) {
    throw_usage("--until-output, --until-port and --idle wait for one task ID");
  }
  const TaskDir dir = open_task_dir_to_read(global);
  if (condition) {
    catch_interrupts({SIGINT, SIGTERM, SIGHUP});
    return wait_for(dir, resolve_task_id(dir, prefixes.front()), *condition, limit, vm);
  }
  // Watching before the selection reads the records: what changes after
  // those reads is an event, so the wait need not read them again.
  TaskWatcher watcher(dir, WatchOutput::no);
  auto selection = select_tasks_and_records(dir, vm, prefixes);
  catch_interrupts({SIGINT, SIGTERM, SIGHUP});
  watcher.watch_interrupts();
  const WaitResult result =
    wait_for_tasks(watcher, dir, selection.ids, mode, limit, std::move(selection.read));
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
