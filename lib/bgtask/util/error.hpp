#pragma once

#include <bgtask/util/result.hpp>

#include <stdexcept>
#include <string>
#include <utility>

namespace bgtask {

// The process exit codes bgtask documents: the one table of them (README
// and docs/bgtask.1.scd, "EXIT STATUS"; tests/shell/test_man_page.sh checks the
// page names each). Codes of a task's own exit status (0-255, 128 + signal)
// are passed through as plain ints. The waiter's own outcomes (3-9) say
// that the tasks still run (8: that one is gone); 4-9 belong to `wait`.
enum class ExitCode : int {
  success = 0,
  failure = 1,         // bgtask itself failed (I/O error, unexpected condition)
  usage = 2,           // bad arguments, unknown or ambiguous ID, refused directory
  detached = 3,        // `run` stopped following a task that still runs (--detach-after, Ctrl-\)
  wait_gave_up = 4,    // `wait --timeout` elapsed first; the tasks still run
  interrupted = 5,     // `wait`/`output --follow` got SIGINT/SIGTERM/SIGHUP; the tasks still run
  condition_unmet = 6, // `wait --until-output/--until-port/--idle`: the task ended first
  idle = 7,            // `wait --idle`: the task printed nothing for DUR while it ran
  removed = 8,         // `wait`: a task was removed (`cleanup`) before its final state was read
  stream_gap = 10,     // `events`: the events after the cursor are no longer kept (relist, go on)
  lock_busy = 11,      // a lock of the task directory stayed held for k_lock_patience
  limit_reached = 69,  // `start --max-running`: too many tasks running; nothing started
  lost = 75,           // a task's outcome is unknown (supervisor died, host rebooted)
  unanswered =
    76, // `cancel`: a supervisor did not act on the request in time; the record is not final

  limits_unavailable = 78, // `start --memory-max/--pids-max/--cpu-max`: no writable cgroup here
  timed_out = 124,         // a task timed out (its own --timeout)
  cancelled = 125,         // a task was cancelled (`cancel`, or Ctrl-C in `run`)
  run_interrupted = 130,   // `run`: Ctrl-C stopped the task, as it stops a foreground command
  reader_gone = 141,       // `output --follow`, `run`: stdout's reader went away (as SIGPIPE would)
};

// The one error type library code throws; `run_cli` prints `what()` and
// exits with `code()`.
class Error : public std::runtime_error
{
public:
  Error(ExitCode code, const std::string& message);

  ExitCode code() const { return m_code; }

private:
  ExitCode m_code;
};

// Throws Error(ExitCode::usage, message).
[[noreturn]] void throw_usage(const std::string& message);

// The value of `result`, or throws Error(usage) with its reason: how the
// command line turns an expected failure of a parser into its usage error.
template <typename T> T value_or_usage(Result<T> result)
{
  if (!result) {
    throw_usage(result.error());
  }
  return std::move(result).value();
}

// Throws Error(ExitCode::failure, "<what>: <strerror(errnum)>").
[[noreturn]] void throw_system(const std::string& what, int errnum);

} // namespace bgtask
