#include <bgtask/exec/local/local_reconcile.hpp>
#include <bgtask/exec/local/task_liveness.hpp>
#include <bgtask/exec/verdict.hpp>
#include <bgtask/proc/cgroup.hpp>
#include <bgtask/store/outcome_reserve.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/task_lock.hpp>
#include <bgtask/util/error.hpp>

namespace bgtask {

TaskRecord reconcile_local_record(const TaskDir& dir, TaskRecord record)
{
  if (is_final(record.state)) {
    return record;
  }
  auto lock = TaskLock::open_existing(dir, record.id);
  const Liveness liveness = judge_liveness(record, lock ? &*lock : nullptr);
  Verdict verdict = judge_record(record, liveness);
  if (verdict == Verdict::keep || verdict == Verdict::foreign_host) {
    return record;
  }
  // Held until the record is saved, so no other update slips in between and
  // `cleanup` never takes the temp of this write for an abandoned one.
  std::optional<UpdateLockGuard> guard;
  if (lock) {
    // After a reboot the executor did not test the lock; take it now so
    // racing reconcilers still rewrite the record once.
    if (verdict == Verdict::host_rebooted && !lock->try_take_ownership()) {
      return record;
    }
    guard.emplace(*lock);
    auto loaded = load_record(dir, record.id);
    if (loaded.status != LoadStatus::ok) {
      return record;
    }
    verdict = judge_record(loaded.record, liveness);
    // A supervisor that could not write the final record left it here, once
    // the command had ended (whatever descendants of it still run).
    std::optional<TaskRecord> note;
    if (verdict == Verdict::supervisor_died || verdict == Verdict::unsupervised) {
      note = read_outcome_note(*lock, record.id);
    }
    if (verdict == Verdict::keep && !note) {
      return loaded.record;
    }
    record = std::move(loaded.record);
    if (note) {
      note->generation = record.generation;
      record = std::move(*note);
      add_event(record, "reconciled", "final record recovered from the supervisor's note");
      verdict = Verdict::keep;
    }
  }
  apply_verdict(record, verdict);
  if (is_final(record.state) && record.cgroup) {
    TaskCgroup::remove_leftover(*record.cgroup); // the supervisor died before it could
    record.cgroup.reset();
  }
  try {
    save_record(dir, record);
  } catch (const Error&) {
    // A full or read-only disk must not stop list, status or wait: report
    // what is true now and leave the file to a later reconciliation.
  }
  return record;
}

} // namespace bgtask
