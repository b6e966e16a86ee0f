#pragma once

#include <bgtask/exec/local/output_keeper.hpp>
#include <bgtask/exec/local/removal_watch.hpp>
#include <bgtask/exec/local/stop_tree.hpp>
#include <bgtask/exec/local/supervisor_plan.hpp>

#include <chrono>
#include <functional>
#include <optional>
#include <sys/stat.h>
#include <sys/types.h>

namespace bgtask {

class TaskDir;

// One attempt of the command, watched by its supervisor until it has ended:
// its exit (SIGCHLD on the signalfd), cancel requests (SIGTERM and the
// others the supervisor handles, or a request found in the record), the
// timeout, pause and resume (SIGUSR1), the removal of the task and the work
// of the output bound. A cancel, a timeout or a removal stops the tree
// (stop_tree.hpp); the timeout's clock stands still while it is paused.
class AttemptWatch
{
public:
  using Clock = std::chrono::steady_clock;

  // With TrimMemory::soon, it gives the free heap the CLI left behind back
  // to the kernel (malloc_trim) once the command has run for a moment, and
  // again a moment after each time it read the record. A command that ends
  // sooner never pays for it.
  enum class TrimMemory { no, soon };

  // `child`: the command, forked and released; `signal_fd`: the
  // supervisor's signalfd; `capture`: the output bound, or null;
  // `output_held` tells whether a process still holds the command's output
  // (output_holders.hpp).
  AttemptWatch(const TaskDir& dir, SupervisorPlan& plan, pid_t child, int signal_fd,
               OutputKeeper* capture, std::function<bool()> output_held, TrimMemory trim);

  // Runs until the command has exited and no process holds its output any
  // more; returns the command's wait status. A stopped tree's leftovers are
  // KILLed before it returns.
  int run();

  // Why the tree was stopped, if it was.
  Stopping stopping() const { return m_tree.stopping(); }

private:
  bool still_held();
  void trim_later();
  std::optional<int> wait_for_events(std::optional<Clock::time_point> next);
  std::optional<int> handle_signals();
  void drain_keeper(Clock::time_point now);
  void stop_if_removed(Clock::time_point now);
  bool cancel_requested_in_record();
  Milliseconds requested_grace();
  void follow_pause_request();
  bool pause_without_held_locks();

  const TaskDir& m_dir;
  SupervisorPlan& m_plan;
  pid_t m_child;
  int m_signal_fd;
  OutputKeeper* m_capture;   // null when the output is not bounded
  std::string m_status_name; // the record's file name
  RemovalWatch m_removal;
  std::function<bool()> m_output_held;
  SupervisedTree m_tree;
  std::optional<Clock::time_point> m_keeper_due; // the output bound's timer
  Clock::time_point m_record_check_at;
  struct stat m_record_seen
  {
  };
  std::optional<Clock::time_point> m_timeout_at;
  Clock::time_point m_paused_at;
  std::optional<Clock::time_point> m_pause_retry_at; // a pause put off: a lock was held
  std::optional<Clock::time_point> m_trim_at;
};

} // namespace bgtask
