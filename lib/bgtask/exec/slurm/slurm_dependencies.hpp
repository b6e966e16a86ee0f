#pragma once

#include <bgtask/core/task_record.hpp>

#include <optional>
#include <string>
#include <vector>

namespace bgtask {

class TaskDir;

// `start --executor slurm --after IDS`: the dependencies become Slurm's
// own (`--dependency=afterok:JOBS --kill-on-invalid-dep=yes`), so they
// must all be Slurm jobs of the cluster the task is submitted to.

// Loads the records of `ids` (resolved task IDs). Throws Error(usage) if one
// is not a Slurm task (a local task cannot be a Slurm job's dependency), and
// Error(failure) if one cannot be read.
std::vector<TaskRecord> load_slurm_dependencies(const TaskDir& dir,
                                                const std::vector<std::string>& ids);

// What the dependencies, reconciled, mean for the new task.
struct SlurmDependencies
{
  std::vector<std::string> job_ids;  // the unfinished ones: the job waits for them
  std::optional<std::string> failed; // set if one ended without success: never run the task
};

// Judges reconciled dependency records for a task submitted to `cluster`.
// Throws Error(usage) for a job of another cluster. Succeeded dependencies
// are dropped (their jobs may be gone from the controller already).
SlurmDependencies judge_slurm_dependencies(const std::vector<TaskRecord>& dependencies,
                                           const std::string& cluster);

// Why Slurm cancelled, before it ran, the job of a task that waited for
// `dependencies` (their reconciled records), the job ending at
// `cancelled_at` (if known): the first dependency that had ended without
// success by then (`dependency ID did not succeed: ...`), as
// --kill-on-invalid-dep cancels the job at once when one does. nullopt if
// none had: the job was cancelled for another reason (scancel).
std::optional<std::string> failed_dependency(const std::vector<TaskRecord>& dependencies,
                                             std::optional<TimePoint> cancelled_at);

} // namespace bgtask
