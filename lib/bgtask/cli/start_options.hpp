#pragma once

#include <bgtask/cli/command_line.hpp>
#include <bgtask/core/launch_request.hpp>
#include <bgtask/exec/start_task.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace bgtask {

// The options of `start`, `run` and `rerun`, and the plan they ask for
// (start_task.hpp starts it).

// Adds --env and --env-file (shared by `start` and `rerun`) to `options`.
void add_env_options(po::options_description& options);

// The K=V entries --env-file and --env ask for, one per name (the last one
// given wins; --env after --env-file): `--env NAME` takes NAME's value from
// this process's environment. Throws Error(usage) for a malformed entry, an
// unreadable file or an unset NAME; messages never show a value.
std::vector<std::string> env_from_options(const po::variables_map& vm);

// The output bound of a task started without --max-output and
// $BGTASK_MAX_OUTPUT (docs/commands.md, "--max-output").
inline constexpr std::uint64_t k_default_max_output = 64 * 1024 * 1024;

// Adds the options of `start` to `options`.
void add_start_options(po::options_description& options);

// Adds --array (`start` only: `run` and the MCP tool start one task).
void add_array_option(po::options_description& options);

// Builds the plan from parsed options and the command after `--`. Throws
// Error(usage) for anything invalid, before any file is touched (--array
// without --executor slurm, or with --dedupe, included).
StartPlan build_start_plan(const po::variables_map& vm, std::vector<std::string> command);

// The plan that starts `original` again as a new task: the same command,
// cwd, name, executor, queue, dependencies, hook and options (timeout,
// grace, output cap, retries, limits, Slurm options), with `env` (K=V
// entries, checked) as its --env; $BGTASK_MAX_RUNNING applies. An element
// of a job array is started again as a job array of that one index, so
// that it sees the same SLURM_ARRAY_TASK_ID.
StartPlan plan_for_rerun(const TaskRecord& original, std::vector<std::string> env);

} // namespace bgtask
