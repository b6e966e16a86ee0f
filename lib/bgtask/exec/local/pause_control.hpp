#pragma once

#include <bgtask/core/task_record.hpp>
#include <bgtask/exec/pause_action.hpp>

namespace bgtask {

class TaskDir;

// Asks the supervisor of a running local task to stop (pause) or continue
// (resume) the task's whole process tree: records the request in the
// record under its update lock, then signals the supervisor (SIGUSR1),
// which stops or continues every process, keeps the timeout from running
// out while paused and records `pause.paused`. Returns without waiting for
// that. Throws Error(failure) for a task that is not running, runs
// elsewhere, waits between attempts or has no live supervisor.
void request_pause_change(const TaskDir& dir, const TaskRecord& record, PauseAction action);

} // namespace bgtask
