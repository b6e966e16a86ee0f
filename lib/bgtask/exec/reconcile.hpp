#pragma once

#include <bgtask/core/task_record.hpp>
#include <bgtask/exec/executor.hpp>

#include <vector>

namespace bgtask {

class TaskDir;

// What reconciliation makes of an unfinished record.
enum class Verdict {
  keep,            // owner alive, or nothing new to say
  foreign_host,    // written on another host: left as it is
  host_rebooted,   // owner from an earlier boot: lost
  unsupervised,    // owner gone, command still running: mark it
  supervisor_died, // owner and command gone: lost
};

// The rule itself, free of I/O: decides from the record and what its
// executor observed.
Verdict judge_record(const TaskRecord& record, const Liveness& liveness);

// Brings an unfinished record in line with reality and returns the current
// record, through the executor its `executor` field names (executor.hpp).
// Final records are returned untouched.
TaskRecord reconcile_record(const TaskDir& dir, TaskRecord record);

// reconcile_record for many records at once, in place: each executor gets
// its records as one batch, so a remote executor asks its backend once.
void reconcile_records(const TaskDir& dir, std::vector<TaskRecord>& records);

// The local executor's reconciliation. Never trusts a bare pid: the owner
// counts as alive while it holds the task's ownership lock. Only the process
// that takes that lock rewrites the record (re-reading it first), so
// concurrent reconcilers rewrite a record once, and a final record written
// by a live supervisor is never overwritten. Final and foreign records are
// returned untouched.
TaskRecord reconcile_local_record(const TaskDir& dir, TaskRecord record);

} // namespace bgtask
