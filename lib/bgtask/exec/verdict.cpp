#include <bgtask/core/queue_admission.hpp>
#include <bgtask/exec/verdict.hpp>

namespace bgtask {

Verdict judge_record(const TaskRecord& record, const Liveness& liveness)
{
  if (is_final(record.state) || is_parked(record)) {
    return Verdict::keep; // a parked task has no process to lose
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
  if (!liveness.pids_visible) {
    return Verdict::cannot_judge;
  }
  if (liveness.command_alive) {
    if (record.pause.paused || record.pause.requested) {
      return Verdict::paused_orphan;
    }
    return record.unsupervised ? Verdict::keep : Verdict::unsupervised;
  }
  return Verdict::supervisor_died;
}

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
    if (record.retry_at) {
      // The last attempt's outcome is in `attempts`; the next never started.
      const std::string why = "supervisor died between attempts (after attempt " +
                              std::to_string(record.attempts.size()) + "); no further attempt ran";
      record.retry_at.reset();
      add_event(record, "reconciled", why);
      finish_record(record, TaskState::lost, why);
      break;
    }
    add_event(record, "reconciled", "supervisor died; exit status unknown");
    finish_record(record, TaskState::lost, "supervisor died; exit status unknown");
    break;
  case Verdict::paused_orphan: {
    const std::string why = "supervisor died while the task was paused; its processes were killed";
    add_event(record, "reconciled", why);
    finish_record(record, TaskState::lost, why);
    break;
  }
  case Verdict::unsupervised:
    record.unsupervised = true;
    add_event(record, "reconciled", "supervisor died; command still running");
    break;
  case Verdict::keep:
  case Verdict::foreign_host:
  case Verdict::cannot_judge:
    break;
  }
}

} // namespace bgtask
