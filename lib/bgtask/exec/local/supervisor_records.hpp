#pragma once

#include <bgtask/core/launch_request.hpp>
#include <bgtask/core/task_record.hpp>
#include <bgtask/exec/local/output_keeper.hpp>
#include <bgtask/exec/local/stop_tree.hpp>

#include <cstdint>
#include <functional>
#include <optional>

namespace bgtask {

class TaskDir;
class TaskLock;

// What a supervisor writes into its task's record, and how.

// How many times a supervisor tries to write a final record (about 13 s of
// backoff in all) before it leaves the record in its lock file's note.
inline constexpr int k_final_record_attempts = 12;

// Writes a final record in one record transaction (record_transaction.hpp):
// re-read under the update lock, `change` applied, saved; a corrupt record
// is replaced, a removed task is left removed. After a failure it gives the
// space reserved in the lock file back (so a full disk has room for the
// retry) and retries with backoff, up to `attempts` times; if every attempt
// fails it leaves the final record as a note in the lock file, where
// reconciliation finds it. True if the record was saved.
bool save_final_record(const TaskDir& dir, TaskLock& lock, TaskRecord& fallback,
                       const std::function<void(TaskRecord&)>& change, int attempts);

// Writes an intermediate record (a new attempt, a pending retry, a pause)
// in one record transaction. Best effort: on failure the supervisor goes on
// (`change` is applied to `record` alone), and the final record is written
// as usual.
void update_running_record(const TaskDir& dir, TaskLock& lock, TaskRecord& record,
                           const std::function<void(TaskRecord&)>& change);

// Saves the first `running` record, under the update lock. For a task that
// was queued (its `waiting_for` is set), first re-reads the record and keeps
// what others wrote meanwhile (cancel request, progress, events), and
// clears `waiting_for`. Throws Error(failure).
void save_started_record(const TaskDir& dir, TaskLock& lock, TaskRecord& record);

// Marks the pause of a record as over, adding its time to `paused_s`.
void end_pause(TaskRecord& record);

// What `keeper` dropped, into the record's output section.
void record_output_bound(OutputInfo& output, const OutputKeeper& keeper);

// The final state of a command that ended with wait status `status`:
// cancelled or timed out if it was stopped for that, else succeeded or
// failed with its exit code or signal.
void apply_outcome(TaskRecord& record, int status, Stopping stopping, const LaunchRequest& request);

// What a task's cgroup tells at its end.
struct CgroupReport
{
  std::optional<std::uint64_t> memory_peak;
  std::uint64_t pids_limit_hits = 0;
};

// Applies `report` to a final record (the cgroup is gone; a fork refused by
// --pids-max is an event); a failed task that the memory limit's OOM killer
// ended (`oom`) is recorded as `oom`.
void apply_cgroup_report(TaskRecord& r, const CgroupReport& report, bool oom);

} // namespace bgtask
