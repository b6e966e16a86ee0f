#pragma once

#include <bgtask/core/slurm_array_spec.hpp>
#include <bgtask/core/task_record.hpp>
#include <bgtask/util/duration.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace bgtask {

// Everything needed to run one task, beyond what its record says.
struct LaunchRequest
{
  TaskRecord record;                      // filled in by `start`: id, command, cwd, ...
  std::vector<std::string> argv;          // what to execute (after `/bin/sh -c` wrapping)
  std::vector<std::string> env_additions; // K=V pairs from --env, passed to the command only
  std::optional<Milliseconds> timeout;
  Milliseconds grace = k_default_grace;
  std::optional<std::uint64_t> max_output; // --max-output: most bytes kept in ID.output
  // `run`: a descriptor of the caller's stderr that the command's stderr
  // goes to instead of ID.output (record.options.stderr_apart); -1: both
  // streams go to ID.output. Only a task started at once uses it.
  int caller_stderr = -1;
};

// How `start` ended: 0 when the task is running, else the exit code the
// task was recorded with (126 or 127) and the reason.
struct LaunchResult
{
  int exit_code = 0;
  std::string error;
};

} // namespace bgtask
