#include <bgtask/cli/command_line.hpp>
#include <bgtask/cli/console.hpp>
#include <bgtask/cli/record_view.hpp>
#include <bgtask/commands/commands.hpp>
#include <bgtask/core/record_json.hpp>
#include <bgtask/exec/executors.hpp>
#include <bgtask/exec/task_waiter.hpp>
#include <bgtask/proc/process_info.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/utf8.hpp>

#include <iostream>

namespace bgtask {

namespace {

constexpr CommandSyntax k_syntax{
  "cancel", "ID... [--grace DUR] [--json]",
  "Stops running tasks: TERM to the command's process group and descendants, KILL after\n"
  "the grace period (default 5s). Returns once each final record is written. Cancelling a\n"
  "finished task changes nothing and is not an error. A Slurm task is cancelled with scancel\n"
  "(Slurm's KillWait applies instead of the grace period)."};

constexpr Milliseconds k_check_interval{250};

// A running task of another host can only be cancelled there; waiting here
// for it to end would never return.
void refuse_if_elsewhere(const TaskRecord& record)
{
  if (!is_final(record.state) && record.executor == "local" && record.owner &&
      record.owner->host != to_valid_utf8(current_host_name())) {
    throw Error(ExitCode::failure,
                "task " + record.id + " runs on host " + record.owner->host + "; cancel it there");
  }
}

} // namespace

int run_cancel(const GlobalOptions& global, const std::vector<std::string>& args)
{
  po::options_description options("Options");
  options.add_options()("grace", po::value<std::string>(),
                        "time between TERM and KILL (default 5s)")(
    "json", "print a JSON array of the final records");
  const auto parsed = parse_id_command_line(k_syntax, options, IdCount::many, args);
  if (!parsed) {
    return 0;
  }
  const auto& vm = parsed->vm;
  const auto& prefixes = parsed->ids;
  Milliseconds grace{5000};
  if (auto text = optional_value<std::string>(vm, "grace")) {
    grace = parse_duration(*text);
  }
  const TaskDir dir = TaskDir::open(TaskDir::resolve_path(global.dir));
  const auto ids = resolve_task_ids(dir, prefixes);
  const auto current = load_current_records(dir, ids);
  for (const auto& record : current) {
    refuse_if_elsewhere(record);
  }

  std::vector<bool> was_final;
  for (const auto& record : current) {
    was_final.push_back(is_final(record.state));
    if (!was_final.back()) {
      executor_for(record.executor).cancel(dir, record, grace, CancelAttempt::first);
    }
  }
  WaitResult result;
  for (;;) {
    result = wait_for_tasks(dir, ids, WaitMode::all, grace + k_check_interval);
    if (!result.timed_out) {
      break;
    }
    for (const auto& record : result.records) {
      if (!is_final(record.state)) {
        executor_for(record.executor).cancel(dir, record, grace, CancelAttempt::repeat);
      }
    }
  }

  if (vm.count("json") != 0) {
    print_json(records_to_json(result.records));
    return 0;
  }
  for (std::size_t i = 0; i < ids.size(); ++i) {
    std::cout << ids[i] << ' ' << (was_final[i] ? "already " : "")
              << for_stdout(state_text(result.records[i])) << '\n';
  }
  return 0;
}

} // namespace bgtask
