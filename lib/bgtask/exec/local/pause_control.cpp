#include <bgtask/exec/local/pause_control.hpp>
#include <bgtask/exec/local/task_liveness.hpp>
#include <bgtask/proc/process_info.hpp>
#include <bgtask/store/record_transaction.hpp>
#include <bgtask/store/task_lock.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/utf8.hpp>

#include <cerrno>
#include <csignal>

namespace bgtask {

namespace {

// Why `record` cannot be paused or resumed now, or empty.
std::string refusal(const TaskRecord& record)
{
  if (record.executor != k_local_executor) {
    return "runs under the " + record.executor + " executor (only local tasks pause)";
  }
  if (record.state != TaskState::running) {
    return "is " + std::string(to_string(record.state)) + ", not running";
  }
  if (record.unsupervised || !record.owner) {
    return "has no live supervisor";
  }
  if (!is_this_machine(record.owner->host, record.owner->boot_id)) {
    return "runs on host " + record.owner->host;
  }
  if (record.retry_at) {
    return "waits between attempts; nothing runs to pause";
  }
  return {};
}

} // namespace

void request_pause_change(const TaskDir& dir, const TaskRecord& record, PauseAction action)
{
  const std::string verb = action == PauseAction::pause ? "pause" : "resume";
  if (const auto why = refusal(record); !why.empty()) {
    throw Error(ExitCode::failure, "cannot " + verb + " task " + record.id + ": it " + why);
  }
  auto lock = TaskLock::open_existing(dir, record.id);
  if (!lock) {
    throw_system("cannot " + verb + " task " + record.id + ": cannot open its lock", errno);
  }
  // The supervisor is checked before anything is recorded: a request it
  // cannot be told of must not stay in the record.
  if (!signal_supervisor(record, *lock, 0)) {
    throw Error(ExitCode::failure,
                "cannot " + verb + " task " + record.id + ": its supervisor is gone");
  }
  const auto update = update_record(dir, *lock, record.id, [&](TaskRecord& current) {
    if (const auto why = refusal(current); !why.empty()) {
      throw Error(ExitCode::failure, "cannot " + verb + " task " + record.id + ": it " + why);
    }
    current.pause.requested = action == PauseAction::pause;
    add_event(current, verb + "_requested");
    return Change::save;
  });
  if (update.status != UpdateStatus::saved) {
    throw Error(ExitCode::failure, "cannot " + verb + " task " + record.id + ": " +
                                     (update.status == UpdateStatus::gone
                                        ? std::string("it was removed")
                                        : "cannot read its record: " + update.reason));
  }
  if (!signal_supervisor(record, *lock, SIGUSR1)) {
    throw Error(ExitCode::failure,
                "cannot " + verb + " task " + record.id + ": its supervisor is gone");
  }
}

} // namespace bgtask
