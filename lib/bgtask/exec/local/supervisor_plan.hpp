#pragma once

#include <bgtask/core/launch_request.hpp>
#include <bgtask/exec/executor.hpp>
#include <bgtask/exec/local/admitted_task.hpp>
#include <bgtask/exec/local/pty_output.hpp>
#include <bgtask/proc/cgroup.hpp>
#include <bgtask/store/dir_lock.hpp>
#include <bgtask/store/parked_tasks.hpp>
#include <bgtask/store/task_lock.hpp>
#include <bgtask/util/unique_fd.hpp>

#include <optional>
#include <sys/types.h>

namespace bgtask {

// What the forked supervisor process (supervisor.hpp) is handed by `start`.
struct SupervisorPlan
{
  LaunchRequest request;
  TaskLock lock;   // ownership already taken; kept for the supervisor's life
  UniqueFd output; // `ID.output`, opened for appending
  UniqueFd report; // write end of the pipe `start` reads the launch result from
  // Write end of the pipe whose end of file tells `start` that the first
  // command exec'd: only that command keeps it (a byte in it: its exec
  // failed); closed when the supervisor answers `start` otherwise.
  UniqueFd start_notice;
  mode_t caller_umask = 022;
  Reconciler reconcile = nullptr;   // for the records a queued task waits for
  std::optional<TaskCgroup> cgroup; // made by the supervisor itself when limits are asked for
  // A parked task admitted by a hand-off (queue_handoff.hpp): its queue's
  // slot (held while the command runs) and its file in `.parked`, removed
  // once the running record is durable.
  std::optional<DirLock> slot;
  std::optional<ParkedEntry> parked;
  ParkedLauncher launch_parked = nullptr; // how its hand-off starts the tasks it admits
  // LaunchRequest::caller_stderr, inherited from `run`: every attempt's
  // command gets it as its stderr.
  UniqueFd caller_stderr;
  // --pty: the terminal every attempt's command writes to (made by the
  // supervisor itself).
  std::optional<PtyOutput> pty;
};

} // namespace bgtask
