#pragma once

#include <stdexcept>
#include <string>

namespace bgtask {

// The process exit codes bgtask documents (README, "Exit codes"). Codes of a
// task's own exit status (0-255) are passed through as plain ints.
enum class ExitCode : int {
  success = 0,
  failure = 1,        // bgtask itself failed (I/O error, unexpected condition)
  usage = 2,          // bad arguments, unknown or ambiguous ID, refused directory
  detached = 3,       // `run` stopped following a task that still runs (--detach-after, Ctrl-C)
  limit_reached = 69, // `start --max-running`: too many tasks running; nothing started
  lost = 75,          // a task's outcome is unknown (supervisor died, host rebooted)
  timed_out = 124,    // a task timed out, or `wait --timeout` elapsed first
  cancelled = 130,    // a task was cancelled
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

// Throws Error(ExitCode::failure, "<what>: <strerror(errnum)>").
[[noreturn]] void throw_system(const std::string& what, int errnum);

} // namespace bgtask
