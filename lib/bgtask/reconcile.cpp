#include <bgtask/reconcile.hpp>

#include <bgtask/record_store.hpp>
#include <bgtask/task_lock.hpp>

namespace bgtask {

Verdict judge_record(const TaskRecord& record, const Liveness& liveness)
{
  if (is_final(record.state)) {
    return Verdict::keep;
  }
  if (!liveness.same_host) {
    return Verdict::foreign_host;
  }
  if (!liveness.same_boot) {
    return Verdict::host_rebooted;
  }
  if (liveness.supervisor_alive) {
    return Verdict::keep;
  }
  if (liveness.command_alive) {
    return record.unsupervised ? Verdict::keep : Verdict::unsupervised;
  }
  return Verdict::supervisor_died;
}

namespace {

void apply_verdict(TaskRecord& record, Verdict verdict)
{
  switch (verdict) {
  case Verdict::host_rebooted:
    add_event(record, "reconciled", "host rebooted");
    finish_record(record, TaskState::lost, "host rebooted");
    break;
  case Verdict::supervisor_died:
    add_event(record, "reconciled", "supervisor died; exit status unknown");
    finish_record(record, TaskState::lost, "supervisor died; exit status unknown");
    break;
  case Verdict::unsupervised:
    record.unsupervised = true;
    add_event(record, "reconciled", "supervisor died; command still running");
    break;
  case Verdict::keep:
  case Verdict::foreign_host:
    break;
  }
}

} // namespace

TaskRecord reconcile_record(const TaskDir& dir, TaskRecord record)
{
  if (is_final(record.state)) {
    return record;
  }
  auto lock = TaskLock::open_existing(dir, record.id);
  const Liveness liveness = executor_for(record.executor).judge(record, lock ? &*lock : nullptr);
  Verdict verdict = judge_record(record, liveness);
  if (verdict == Verdict::keep || verdict == Verdict::foreign_host) {
    return record;
  }
  if (lock) {
    // After a reboot the executor did not test the lock; take it now so
    // racing reconcilers still rewrite the record once.
    if (verdict == Verdict::host_rebooted && !lock->try_take_ownership()) {
      return record;
    }
    UpdateLockGuard guard(*lock);
    auto loaded = load_record(dir, record.id);
    if (loaded.status != LoadStatus::ok) {
      return record;
    }
    verdict = judge_record(loaded.record, liveness);
    if (verdict == Verdict::keep) {
      return loaded.record;
    }
    record = std::move(loaded.record);
  }
  apply_verdict(record, verdict);
  save_record(dir, record);
  return record;
}

} // namespace bgtask
