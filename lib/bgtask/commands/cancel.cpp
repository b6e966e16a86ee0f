#include <bgtask/commands/commands.hpp>

#include <bgtask/command_line.hpp>
#include <bgtask/console.hpp>
#include <bgtask/error.hpp>
#include <bgtask/executor.hpp>
#include <bgtask/process_info.hpp>
#include <bgtask/record_json.hpp>
#include <bgtask/record_store.hpp>
#include <bgtask/record_view.hpp>
#include <bgtask/task_dir.hpp>
#include <bgtask/task_id.hpp>
#include <bgtask/task_lock.hpp>
#include <bgtask/task_waiter.hpp>
#include <bgtask/utf8.hpp>

#include <csignal>
#include <iostream>

namespace bgtask {

namespace {

constexpr CommandSyntax k_syntax{
  "cancel", "ID... [--grace DUR] [--json]",
  "Stops running tasks: TERM to the command's process group and descendants, KILL after\n"
  "the grace period (default 5s). Returns once each final record is written. Cancelling a\n"
  "finished task changes nothing and is not an error."};

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

// Asks a task's live supervisor to cancel: records the request, then
// signals the supervisor, verified by pidfd, start time and its lock.
void request_cancel(const TaskDir& dir, const TaskRecord& record, Milliseconds grace)
{
  auto lock = TaskLock::open_existing(dir, record.id);
  if (!lock || !record.owner) {
    return;
  }
  {
    UpdateLockGuard guard(*lock);
    auto loaded = load_record(dir, record.id);
    if (loaded.status != LoadStatus::ok || is_final(loaded.record.state)) {
      return;
    }
    loaded.record.cancel_request = CancelRequest{now(), to_seconds(grace)};
    add_event(loaded.record, "cancel_requested");
    save_record(dir, loaded.record);
  }
  const UniqueFd pidfd = open_pidfd(record.owner->pid);
  if (pidfd && is_same_process(record.owner->pid, record.owner->start_time) &&
      !lock->try_take_ownership()) {
    send_signal(pidfd, SIGTERM);
  }
}

// Stops a task whose supervisor is gone and records it as cancelled.
void cancel_orphan(const TaskDir& dir, const TaskRecord& record, Milliseconds grace)
{
  executor_for(record.executor).stop_orphaned(record, grace);
  auto lock = TaskLock::open_existing(dir, record.id);
  if (lock && !lock->try_take_ownership()) {
    return; // someone else is finishing it
  }
  std::optional<UpdateLockGuard> guard;
  if (lock) {
    guard.emplace(*lock);
  }
  auto loaded = load_record(dir, record.id);
  if (loaded.status != LoadStatus::ok || is_final(loaded.record.state)) {
    return;
  }
  add_event(loaded.record, "cancel_requested");
  finish_record(loaded.record, TaskState::cancelled, "cancelled on request (supervisor was gone)");
  save_record(dir, loaded.record);
}

} // namespace

int run_cancel(const GlobalOptions& global, const std::vector<std::string>& args)
{
  po::options_description options("Options");
  options.add_options()
    ("grace", po::value<std::string>(), "time between TERM and KILL (default 5s)")
    ("json", "print a JSON array of the final records");
  po::options_description hidden;
  hidden.add_options()("id", po::value<std::vector<std::string>>(), "task IDs");
  options.add(hidden);
  po::positional_options_description positional;
  positional.add("id", -1);
  const auto vm = parse_command_line(k_syntax, options, positional, args);
  if (!vm) {
    return 0;
  }
  const auto prefixes = optional_value<std::vector<std::string>>(*vm, "id");
  if (!prefixes) {
    throw_usage("bgtask cancel: give at least one task ID");
  }
  Milliseconds grace{5000};
  if (auto text = optional_value<std::string>(*vm, "grace")) {
    grace = parse_duration(*text);
  }
  // Malformed IDs are refused before the directory is touched (or created).
  for (const auto& prefix : *prefixes) {
    check_task_id_prefix(prefix);
  }
  const TaskDir dir = TaskDir::open(TaskDir::resolve_path(global.dir));
  const auto ids = resolve_task_ids(dir, *prefixes);
  for (const auto& id : ids) {
    refuse_if_elsewhere(load_current_record(dir, id));
  }

  std::vector<bool> was_final;
  for (const auto& id : ids) {
    const TaskRecord record = load_current_record(dir, id);
    was_final.push_back(is_final(record.state));
    if (!was_final.back()) {
      if (record.unsupervised) {
        cancel_orphan(dir, record, grace);
      } else {
        request_cancel(dir, record, grace);
      }
    }
  }
  WaitResult result;
  for (;;) {
    result = wait_for_tasks(dir, ids, WaitMode::all, grace + k_check_interval);
    if (!result.timed_out) {
      break;
    }
    for (const auto& record : result.records) {
      if (!is_final(record.state) && record.unsupervised) {
        cancel_orphan(dir, record, grace);
      }
    }
  }

  if (vm->count("json") != 0) {
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
