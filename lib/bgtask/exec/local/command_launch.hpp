#pragma once

#include <bgtask/core/launch_request.hpp>
#include <bgtask/proc/child_exec.hpp>
#include <bgtask/util/unique_fd.hpp>

#include <optional>
#include <string>
#include <sys/types.h>

namespace bgtask {

// Everything the command's process needs, built before the fork (nothing
// is allocated between fork and exec): argv, the merged environment (with
// BGTASK_ID, BGTASK_DIR and BGTASK_ATTEMPT; its PATH is the one argv[0] is
// looked up in), the working directory, the descriptor its stdout and
// stderr go to, and the caller's umask.
struct CommandImage
{
  CommandImage(const LaunchRequest& request, const std::string& dir_path, int attempt,
               int output_fd, mode_t caller_umask);

  ExecStrings argv;
  ExecStrings env;
  std::string cwd;
  int output_fd;
  // Where the command's stderr goes instead of the output (`run` with
  // stderr apart), or -1.
  int error_fd = -1;
  mode_t caller_umask;
  // Where set, the command opens its own locked description of this file of
  // the task directory (output_holders.hpp) instead of using output_fd.
  int held_output_dir = -1;
  std::string held_output_name;
  // SupervisorPlan::start_notice for the first attempt, else -1.
  int start_notice_fd = -1;
};

// A command's process that has not been released yet: it waits for "go" on
// a pipe, so the running record can name it before it runs anything. A
// fork that execs `image` with execvpe (PATH taken from `image.env`).
class PendingCommand
{
public:
  // Starts the command's process in its own process group. Throws
  // Error(failure) if a pipe or the process cannot be made.
  explicit PendingCommand(const CommandImage& image);
  PendingCommand(const PendingCommand&) = delete;
  PendingCommand& operator=(const PendingCommand&) = delete;

  pid_t pid() const { return m_pid; }

  // Lets the command exec.
  void release();

  // Once the released command has exited (and was reaped): nullopt if it
  // exec'd, else why it could not (chdir or exec failure) and the exit code
  // it ended with (127 for a missing program, else 126). Nobody waits for
  // the exec itself: `start` hears of it from the command (start_notice),
  // and a supervisor woken by it would compete with `start` for a CPU.
  struct Failure
  {
    int exit_code;
    std::string reason;
  };
  std::optional<Failure> exec_failure(const LaunchRequest& request);

private:
  UniqueFd m_go;
  UniqueFd m_errors;
  pid_t m_pid = -1;
};

} // namespace bgtask
