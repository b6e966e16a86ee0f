#pragma once

#include <bgtask/core/task_record.hpp>

namespace bgtask {

class TaskDir;

// The local executor's reconciliation. Never trusts a bare pid: the owner
// counts as alive while it holds the task's ownership lock. Only the process
// that takes that lock rewrites the record (re-reading it first), so
// concurrent reconcilers rewrite a record once, and a final record written
// by a live supervisor is never overwritten. Final and foreign records are
// returned untouched.
TaskRecord reconcile_local_record(const TaskDir& dir, TaskRecord record);

} // namespace bgtask
