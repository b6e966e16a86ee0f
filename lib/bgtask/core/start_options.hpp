#pragma once

#include <bgtask/core/slurm_array_spec.hpp>
#include <bgtask/core/task_record.hpp>
#include <bgtask/util/duration.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace bgtask {

// The part of StartOptions only the slurm executor carries out; the local
// executor refuses it (Executor::check).
struct SlurmStartOptions
{
  std::optional<std::string> partition;  // --partition
  std::optional<std::string> time_limit; // --slurm-time, verbatim
  std::vector<std::string> args;         // --slurm-arg, verbatim
  std::optional<SlurmArraySpec> array;   // --array: one job array, a task per index
};

// What `start`, `run`, `rerun` and the MCP start tool ask for, each value
// parsed but not yet checked against the others or by an executor
// (exec/start_plan.hpp does both). Unset: the default ($BGTASK_* included).
struct StartOptions
{
  std::vector<std::string> command; // after `--`
  std::optional<std::string> shell; // -c STRING, instead of `command`
  std::optional<std::string> name;
  std::optional<std::string> cwd; // as given
  std::vector<std::string> env;   // K=V entries, one per name (--env, --env-file)
  std::optional<Milliseconds> timeout;
  std::optional<Milliseconds> grace;
  // --max-output: a bound in bytes, or `none` (an empty inner value).
  std::optional<std::optional<std::uint64_t>> max_output;
  std::optional<std::string> executor;
  std::optional<std::string> queue;
  std::optional<std::size_t> slots;
  std::vector<std::string> after; // --after, each a comma list of ID prefixes
  bool dedupe = false;
  std::optional<std::size_t> max_running;
  std::optional<RetryPolicy> retry;
  ResourceLimits limits;
  std::optional<std::string> on_exit;
  std::optional<std::string> rerun_of; // `rerun`: the task started again
  bool pty = false;                    // --pty
  SlurmStartOptions slurm;
};

} // namespace bgtask
