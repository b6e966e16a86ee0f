#pragma once

#include <bgtask/exec/executor.hpp>

namespace bgtask {

// Runs tasks on this host under a forked supervisor (supervisor.hpp).
class LocalExecutor final : public Executor
{
public:
  // `reconciler` judges the records a queued task waits for (its --after
  // dependencies may run under any executor).
  explicit LocalExecutor(Reconciler reconciler)
    : m_reconcile(reconciler)
  {
  }

  // Refuses the Slurm options, and resource limits where no cgroup can
  // enforce them.
  void check(const StartOptions& options) const override;

  // A task that must wait (--queue, --after) is parked: its record and its
  // file in `.parked` are made durable and no process is forked; then a
  // hand-off (queue_handoff.hpp) starts whatever may start now. Any other
  // task gets its supervisor at once.
  LaunchResult launch(const TaskDir& dir, TaskLock lock, LaunchRequest request) override;

  // Admits the parked tasks that may start now (admit_parked_tasks).
  void admit(const TaskDir& dir);

  // admit, if one of the parked tasks among `records` waits for --after
  // tasks or one of their queues has a free slot.
  void admit_for(const TaskDir& dir, const std::vector<TaskRecord>& records);

  // Each record through reconcile_local_record (local_reconcile.hpp).
  void reconcile(const TaskDir& dir, std::vector<TaskRecord>& records) override;

  // A supervised task: records a cancel request and signals the supervisor,
  // which stops the command and writes the final record. An unsupervised
  // one: stops what is left of it (stop_orphaned, stop_tree.hpp) and records it cancelled.
  // A repeat only acts on a task that has become unsupervised meanwhile;
  // an overdue or last one on a supervisor that does not answer
  // (stop_unanswered.hpp).
  std::optional<std::string> cancel(const TaskDir& dir, const TaskRecord& record,
                                    Milliseconds grace, CancelAttempt attempt) override;

  // cancel's first attempt for each, the queued tasks among them ended
  // together (cancel_parked_tasks, queue_handoff.hpp); returns their final records.
  std::vector<TaskRecord>
  cancel_all(const TaskDir& dir, const std::vector<const TaskRecord*>& records,
             const std::function<Milliseconds(const TaskRecord&)>& grace_of) override;

  // nullopt: the supervisor replaces the record (seen by inotify) and its
  // exit is seen through a pidfd.
  std::optional<Milliseconds> recheck_interval() const override { return std::nullopt; }

private:
  LaunchResult park(const TaskDir& dir, TaskLock lock, LaunchRequest request);

  Reconciler m_reconcile;
};

} // namespace bgtask
