#pragma once

#include <bgtask/core/task_record.hpp>
#include <bgtask/exec/pause_action.hpp>

#include <string>
#include <vector>

namespace bgtask {

class TaskDir;

// `pause` and `resume`: asks the executor of each task of `ids` to stop
// (pause) or continue (resume) its whole process tree (request_pause in
// executors.hpp), unless its record already says so, then waits until
// every record confirms it or the task has ended. Returns the records.
// Throws Error(failure) for a task that cannot be paused or resumed (not
// running, run elsewhere, no live supervisor, an executor that does not
// pause), or whose record does not confirm within 10 s.
std::vector<TaskRecord> change_pause(const TaskDir& dir, const std::vector<std::string>& ids,
                                     PauseAction action);

} // namespace bgtask
