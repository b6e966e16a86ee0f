#pragma once

#include <bgtask/proc/child_exec.hpp>

#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace bgtask {

// A helper program to start: the exit hook, a Slurm client.
struct SpawnRequest
{
  std::vector<std::string> argv; // argv[0] without a '/' is looked up in bgtask's PATH
  std::vector<std::string> env;  // its whole environment (see merged_environment)
  int stdin_fd = -1;             // -1: /dev/null
  int stdout_fd = -1;            // -1: /dev/null
  int stderr_fd = -1;            // -1: /dev/null
  ProcessGroup group = ProcessGroup::inherit;
  std::optional<std::string> cwd; // where it runs (default: here); must exist
  std::optional<mode_t> umask;    // its umask (default: bgtask's own, 077)
};

// What spawn_program did: the child's pid, or why there is none.
struct Spawned
{
  pid_t pid = -1;
  int error = 0; // errno of the failed start (ENOENT, EACCES, ENOMEM...)
};

// Starts `request` with posix_spawn(3): every signal at its default and
// unblocked, descriptors 0-2 as asked and no other open. A program that
// cannot be executed is an error here, not a child that exits 127. A
// requested umask is set in this process around the spawn (posix_spawn has
// no attribute for it): bgtask always passes the final mode when it
// creates a file, so another thread creating one meanwhile is not affected.
Spawned spawn_program(const SpawnRequest& request);

} // namespace bgtask
