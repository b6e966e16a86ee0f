#pragma once

#include <bgtask/exec/admitted_handles.hpp>
#include <bgtask/exec/local/admitted_task.hpp>

namespace bgtask {

class TaskDir;

// Starts the supervisor of `task` in a detached process (fork_detached)
// that execs this program as `bgtask __supervise` (admitted_handles.hpp);
// it inherits the task's ownership lock and its slot. The claims are this
// process's until the fork, the supervisor's after. Throws Error(failure)
// when no process can be forked (the claims then go with `task`, and the
// task stays parked).
void launch_parked_task(const TaskDir& dir, AdmittedTask task, Reconciler reconcile);

// The supervisor of an admitted task, in the process launch_parked_task
// started: takes over the claims `handles` names, adopts the environment
// `start` had, writes the running record, removes the task's file from
// `.parked` and runs the command. Returns only if it does not supervise,
// saying why: the claims are not valid (it does nothing), or the task
// cannot start (it ends it `failed` and hands off, fail_admitted_task).
std::string supervise_admitted_task(const TaskDir& dir, const AdmittedHandles& handles,
                                    Reconciler reconcile);

} // namespace bgtask
