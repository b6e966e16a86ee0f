#pragma once

#include <bgtask/exec/local/admitted_task.hpp>

namespace bgtask {

class TaskDir;

// Starts the supervisor of `task` in a detached process (fork_detached),
// with the environment and umask `start` had, which inherits the task's
// ownership lock and its slot: it writes the running record, removes the
// task's file from `.parked` and runs the command. The claims are this
// process's until the fork, the supervisor's after. Throws Error(failure)
// when the launch context cannot be read or no process can be forked (the
// claims then go with `task`, and the task stays parked).
void launch_parked_task(const TaskDir& dir, AdmittedTask task, Reconciler reconcile);

} // namespace bgtask
