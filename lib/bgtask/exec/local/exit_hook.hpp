#pragma once

#include <bgtask/core/task_record.hpp>
#include <bgtask/store/task_lock.hpp>
#include <bgtask/util/duration.hpp>

namespace bgtask {

class TaskDir;

// The longest an --on-exit hook may run before its process group is killed.
inline constexpr Milliseconds k_exit_hook_limit{60000};

// Runs the task's --on-exit hook, if it has one, after its final record is
// written (by its supervisor, which calls this once): `/bin/sh -c HOOK` in
// the task's cwd (else `/`), in a process group of its own, stdin from
// /dev/null, with the environment `start` had plus BGTASK_ID, BGTASK_DIR,
// BGTASK_STATE, BGTASK_EXIT_CODE (the code `wait` exits with for this task)
// and BGTASK_OUTPUT (the output file). Waits for the hook's own process at
// most k_exit_hook_limit, then kills its group; then whatever the hook
// started (backgrounded, setsid, nohup: all come back to its keeper, a
// subreaper) gets TERM, and KILL after the task's grace, but other tasks'
// supervisors. Appends an `on_exit` event to the record (`exit 0`, or the
// failure with the end of what the hook wrote); never changes the task's
// state.
void run_exit_hook(const TaskDir& dir, TaskLock& lock, const TaskRecord& record);

} // namespace bgtask
