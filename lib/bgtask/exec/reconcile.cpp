#include <bgtask/exec/local/local_executor.hpp>
#include <bgtask/exec/reconcile.hpp>
#include <bgtask/store/outcome_reserve.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/task_lock.hpp>
#include <bgtask/util/error.hpp>

#include <map>

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
    if (record.state == TaskState::queued) {
      // The command only starts after the running record names it.
      add_event(record, "reconciled", "supervisor died while queued; the command never ran");
      finish_record(record, TaskState::lost, "supervisor died while queued; the command never ran");
      break;
    }
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
  std::vector<TaskRecord> one;
  one.push_back(std::move(record));
  executor_for(one.front().executor).reconcile(dir, one);
  return std::move(one.front());
}

void reconcile_records(const TaskDir& dir, std::vector<TaskRecord>& records)
{
  std::map<std::string, std::vector<std::size_t>> by_executor;
  for (std::size_t i = 0; i < records.size(); ++i) {
    if (!is_final(records[i].state)) {
      by_executor[records[i].executor].push_back(i);
    }
  }
  for (const auto& [name, indices] : by_executor) {
    std::vector<TaskRecord> batch;
    for (const auto i : indices) {
      batch.push_back(std::move(records[i]));
    }
    executor_for(name).reconcile(dir, batch);
    for (std::size_t k = 0; k < indices.size(); ++k) {
      records[indices[k]] = std::move(batch[k]);
    }
  }
}

TaskRecord reconcile_local_record(const TaskDir& dir, TaskRecord record)
{
  if (is_final(record.state)) {
    return record;
  }
  auto lock = TaskLock::open_existing(dir, record.id);
  const Liveness liveness = LocalExecutor().judge(record, lock ? &*lock : nullptr);
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
  try {
    save_record(dir, record);
  } catch (const Error&) {
    // A full or read-only disk must not stop list, status or wait: report
    // what is true now and leave the file to a later reconciliation.
  }
  return record;
}

} // namespace bgtask
