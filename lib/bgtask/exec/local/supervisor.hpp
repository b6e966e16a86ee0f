#pragma once

#include <bgtask/core/launch_request.hpp>
#include <bgtask/exec/executor.hpp>
#include <bgtask/proc/cgroup.hpp>
#include <bgtask/store/task_lock.hpp>
#include <bgtask/util/unique_fd.hpp>

#include <sys/types.h>

namespace bgtask {

class TaskDir;

// What the forked supervisor process is handed by `start`.
struct SupervisorPlan
{
  LaunchRequest request;
  TaskLock lock;   // ownership already taken; kept for the supervisor's life
  UniqueFd output; // `ID.output`, opened for appending
  UniqueFd report; // write end of the pipe `start` reads the launch result from
  mode_t caller_umask = 022;
  Reconciler reconcile = nullptr;   // for the records a queued task waits for
  std::optional<TaskCgroup> cgroup; // made by the supervisor itself when limits are asked for
  UniqueFd retired_watch; // the queued wait's inotify instance, closed once the command runs
};

// Runs in the supervisor process: detaches (new session, stdio on
// /dev/null, no other inherited descriptors), becomes a child subreaper,
// starts the command in its own process group, writes the running record,
// reports the launch result on `plan.report`, then waits for the command,
// enforces the timeout and cancel requests (TERM to the group and every
// descendant, KILL after the grace period) and writes the final record.
// Never returns, and no exception leaves it (one that reaches its top ends
// the task `lost` with the reason). In a build with test seams
// (test_seams.hpp), BGTASK_TEST_STOP_SUPERVISOR makes it stop itself with
// SIGSTOP right after setsid, so a tracer can attach to it alone.
[[noreturn]] void run_supervisor(const TaskDir& dir, SupervisorPlan plan);

} // namespace bgtask
