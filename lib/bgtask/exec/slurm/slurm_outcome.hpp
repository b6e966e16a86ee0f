#pragma once

#include <bgtask/core/task_record.hpp>
#include <bgtask/exec/slurm/slurm_job.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bgtask {

// What a Slurm job's state means for its task.
struct SlurmOutcome
{
  TaskState state = TaskState::queued;
  std::optional<int> exit_code;
  std::optional<int> signal;
  std::string reason;                  // why a final state was reached
  std::optional<TimePoint> started_at; // set only if the job ever ran
  std::optional<TimePoint> finished_at;
  std::string node;                      // where it runs or ran (every node of a multi-node job)
  std::string pending_reason;            // queued: Slurm's reason, if it gives one
  std::optional<std::string> end_reason; // the record's `reason`: `oom` for OUT_OF_MEMORY
  bool missing = false; // known nowhere, within the grace period: only noted in the record
};

// Maps a job to its task's state: PENDING (and the requeue and hold
// states) -> queued; RUNNING, COMPLETING (and SUSPENDED, STOPPED,
// SIGNALING, STAGE_OUT, RESIZING) -> running; COMPLETED -> succeeded;
// FAILED -> failed with the exit code and signal of `ExitCode=code:signal`;
// CANCELLED -> cancelled, with the signal 15 (or the one the controller names) for a job that ran,
// whoever answers (the controller says 0:15, accounting 0:0) and none for one that never ran;
// CANCELLED for DependencyNeverSatisfied -> failed (an --after dependency did not succeed); TIMEOUT
// -> timed_out, naming Slurm's TimeLimit when known; OUT_OF_MEMORY -> failed, killed by SIGKILL (as
// the kernel's OOM killer does; `wait` exits 137), with the record's `reason` `oom`, as for a local
// task killed by its memory limit; NODE_FAIL, PREEMPTED, BOOT_FAIL,
// DEADLINE, SPECIAL_EXIT -> failed with Slurm's state as the reason. nullopt for a state bgtask
// does not know (the record is then left as it is).
std::optional<SlurmOutcome> slurm_outcome(const SlurmJobInfo& job);

// The accounting row of the job `job_id` named `name` (`bgtask-ID`) among
// `jobs` (several may share the id: `sacct --duplicates`): the one of that
// name, else one under Slurm's placeholder name (`allocation`) submitted no
// earlier than the task was created (to the second, Slurm's resolution)
// and at most 60 s later (a later one is another job that reused the id);
// null if none.
const SlurmJobInfo* accounted_job(const std::vector<SlurmJobInfo>& jobs, const std::string& job_id,
                                  const std::string& name, TimePoint created_at);

// The outcome for a job that neither the controller nor accounting knows:
// `lost` with `reason` once it has been missing for the grace period
// (slurm_lost_grace), else `missing` (noted as slurm.missing_since).
SlurmOutcome vanished_job_outcome(std::string reason, bool grace_over = true);

// The outcome for an array element that bgtask cancelled while it was
// pending: Slurm then drops it from the array without any record, so the
// cancel request is what tells. Cancelled, no signal (it never ran).
SlurmOutcome cancelled_before_start_outcome();

// Applies `outcome` to an unfinished record of Slurm job `job_id`. Returns
// true if the record changed (a new state, with its event; a new pending
// reason; the job missing or found again); a final record and a repeated
// observation of the same unfinished state change nothing.
bool apply_slurm_outcome(TaskRecord& record, const SlurmOutcome& outcome);

// Parses Slurm's `2026-11-29T19:08:53` (local time, as clients print it);
// nullopt for `Unknown`, `None`, `N/A` and anything else.
std::optional<TimePoint> parse_slurm_time(std::string_view text);

// Parses `ExitCode=` / `DerivedExitCode=` values: `3:0` -> {3, 0}.
std::optional<std::pair<int, int>> parse_slurm_exit_code(std::string_view text);

} // namespace bgtask
