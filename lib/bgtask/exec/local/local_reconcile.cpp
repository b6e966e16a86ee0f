#include <bgtask/exec/local/local_reconcile.hpp>
#include <bgtask/exec/local/stop_tree.hpp>
#include <bgtask/exec/local/supervisor_records.hpp>
#include <bgtask/exec/local/task_liveness.hpp>
#include <bgtask/exec/verdict.hpp>
#include <bgtask/proc/cgroup.hpp>
#include <bgtask/store/outcome_reserve.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/record_transaction.hpp>
#include <bgtask/store/task_lock.hpp>
#include <bgtask/util/error.hpp>

namespace bgtask {

namespace {

// Brings `record` in line with `verdict` and, for a dead owner, with the
// outcome its supervisor left in the lock file's note; Change::keep if
// there is nothing to say.
Change reconcile_change(TaskRecord& record, const Liveness& liveness, TaskLock& lock)
{
  Verdict verdict = judge_record(record, liveness);
  // A supervisor that could not write the final record left it here, once
  // the command had ended (whatever descendants of it still run); a reboot
  // does not change what it says.
  std::optional<TaskRecord> note;
  if (verdict == Verdict::supervisor_died || verdict == Verdict::unsupervised ||
      verdict == Verdict::host_rebooted) {
    note = read_outcome_note(lock, record.id);
  }
  if (note) {
    note->generation = record.generation;
    record = std::move(*note);
    add_event(record, "reconciled", "final record recovered from the supervisor's note");
  } else if (verdict == Verdict::keep || verdict == Verdict::foreign_host ||
             verdict == Verdict::cannot_judge) {
    return Change::keep;
  } else {
    if (verdict == Verdict::paused_orphan) {
      end_pause(record);
    }
    apply_verdict(record, verdict);
  }
  if (is_final(record.state) && record.cgroup) {
    TaskCgroup::remove_leftover(*record.cgroup); // the supervisor died before it could
    record.cgroup.reset();
  }
  return Change::save;
}

// Every task has its lock file from before its first record until
// `cleanup` removes it (record first, lock file last). Without one the task
// is being removed, or its files were tampered with: say what is true and
// write nothing, so that a removed task never comes back.
TaskRecord report_without_lock(const TaskDir& dir, TaskRecord record, Verdict verdict)
{
  auto loaded = load_record(dir, record.id);
  if (loaded.status != LoadStatus::ok) {
    return record; // removed: the caller's copy, as it was when read
  }
  if (is_final(loaded.record.state)) {
    return std::move(loaded.record);
  }
  apply_verdict(loaded.record, verdict);
  return std::move(loaded.record);
}

} // namespace

TaskRecord reconcile_local_record(const TaskDir& dir, TaskRecord record)
{
  if (is_final(record.state)) {
    return record;
  }
  auto lock = TaskLock::open_existing(dir, record.id);
  const Liveness liveness = judge_liveness(record, lock ? &*lock : nullptr);
  const Verdict verdict = judge_record(record, liveness);
  if (verdict == Verdict::keep || verdict == Verdict::foreign_host ||
      verdict == Verdict::cannot_judge) {
    return record;
  }
  if (!lock) {
    return report_without_lock(dir, std::move(record), verdict);
  }
  if (verdict == Verdict::paused_orphan && lock->read_only()) {
    return record; // nothing may be written, so nothing is killed either
  }
  if (lock->read_only()) {
    // A read-only directory: say what is true, write nothing.
    TaskRecord reported = record;
    return reconcile_change(reported, liveness, *lock) == Change::save ? reported : record;
  }
  // After a reboot the executor did not test the lock; take it now so
  // racing reconcilers still rewrite the record once.
  if (verdict == Verdict::host_rebooted && !lock->try_take_ownership()) {
    return record;
  }
  if (verdict == Verdict::paused_orphan) {
    // No supervisor is left to resume it: thaw and kill what is left (the
    // ownership lock, taken by judge_liveness, makes this reconciler the one).
    stop_orphaned(record, Milliseconds(0));
  }
  try {
    auto update = update_record(dir, *lock, record.id, [&](TaskRecord& current) {
      return reconcile_change(current, liveness, *lock);
    });
    if (update.status == UpdateStatus::saved || update.status == UpdateStatus::kept) {
      return std::move(update.record);
    }
    return record; // removed or corrupt meanwhile: the caller's copy, unchanged
  } catch (const Error&) {
    // A full or read-only disk must not stop list, status or wait: report
    // what is true now and leave the file to a later reconciliation.
    TaskRecord reported = record;
    if (reconcile_change(reported, liveness, *lock) == Change::save) {
      return reported;
    }
    return record;
  }
}

} // namespace bgtask
