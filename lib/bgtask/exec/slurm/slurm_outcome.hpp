#pragma once

#include <bgtask/core/task_record.hpp>
#include <bgtask/exec/slurm/slurm_job.hpp>

#include <optional>
#include <string>
#include <string_view>

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
  std::string node;           // where it runs or ran (every node of a multi-node job)
  std::string pending_reason; // queued: Slurm's reason, if it gives one
};

// Maps a job to its task's state: PENDING (and the requeue and hold
// states) -> queued; RUNNING, COMPLETING (and SUSPENDED, STOPPED,
// SIGNALING, STAGE_OUT, RESIZING) -> running; COMPLETED -> succeeded;
// FAILED -> failed with the exit code and signal of `ExitCode=code:signal`;
// CANCELLED -> cancelled, with the signal 15 for a job that ran whoever
// answers (the controller says 0:15, accounting 0:0) and none for one that
// never ran; CANCELLED for
// DependencyNeverSatisfied -> failed (an --after dependency did not
// succeed); TIMEOUT -> timed_out, naming Slurm's TimeLimit when known;
// NODE_FAIL, OUT_OF_MEMORY, PREEMPTED, BOOT_FAIL, DEADLINE, SPECIAL_EXIT ->
// failed with Slurm's state as the reason. nullopt for a state bgtask does
// not know (the record is then left as it is).
std::optional<SlurmOutcome> slurm_outcome(const SlurmJobInfo& job);

// The outcome for a job that neither the controller nor accounting knows.
SlurmOutcome vanished_job_outcome(std::string reason);

// Applies `outcome` to an unfinished record of Slurm job `job_id`. Returns
// true if the record changed (a new state, with its event); a final record
// and a repeated observation of the same unfinished state change nothing.
bool apply_slurm_outcome(TaskRecord& record, const SlurmOutcome& outcome);

// Parses Slurm's `2026-11-29T19:08:53` (local time, as clients print it);
// nullopt for `Unknown`, `None`, `N/A` and anything else.
std::optional<TimePoint> parse_slurm_time(std::string_view text);

// Parses `ExitCode=` / `DerivedExitCode=` values: `3:0` -> {3, 0}.
std::optional<std::pair<int, int>> parse_slurm_exit_code(std::string_view text);

} // namespace bgtask
