#pragma once

#include <bgtask/exec/admitted_handles.hpp>
#include <bgtask/exec/local/admitted_task.hpp>

namespace bgtask {

class TaskDir;

// Starts the supervisor of `task` in a detached process (fork_detached)
// that execs this program as `bgtask __supervise` (admitted_handles.hpp)
// with the environment `start` had; it inherits the task's ownership lock
// and its slot. The claims are this process's until the fork, the
// supervisor's after. Throws Error(failure) when the launch context cannot
// be read or no process can be forked (the claims then go with `task`,
// and the task stays parked).
void launch_parked_task(const TaskDir& dir, AdmittedTask task, Reconciler reconcile);

// The supervisor of an admitted task, in the process launch_parked_task
// started: takes over the claims `handles` names, writes the running
// record, removes the task's file from `.parked` and runs the command.
// Returns only if the claims are not (or no longer) valid, saying why.
std::string supervise_admitted_task(const TaskDir& dir, const AdmittedHandles& handles,
                                    Reconciler reconcile);

} // namespace bgtask
