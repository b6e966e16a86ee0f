#pragma once

#include <bgtask/core/start_options.hpp>
#include <bgtask/exec/start_task.hpp>
#include <bgtask/util/result.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bgtask {

// The output bound of a task started without --max-output and
// $BGTASK_MAX_OUTPUT (`start --help`, "--max-output").
inline constexpr std::uint64_t k_default_max_output = 64 * 1024 * 1024;

// The grammar of --max-output and $BGTASK_MAX_OUTPUT: a size, or `none`
// (nullopt: unbounded).
Result<std::optional<std::uint64_t>> parse_output_bound(std::string_view text);

// The names of `--env K=V` entries; throws Error(usage) for a malformed
// one. Messages never show a value.
std::vector<std::string> env_entry_names(const std::vector<std::string>& entries);

// The plan `options` ask for: defaults taken ($BGTASK_EXECUTOR,
// $BGTASK_MAX_OUTPUT, $BGTASK_MAX_RUNNING), the options checked against
// each other and by the chosen executor (Executor::check). Throws
// Error(usage) for anything invalid, before any file is touched.
StartPlan plan_start(const StartOptions& options);

// The options that start `original` again as a new task: the same command,
// cwd, name, executor, queue, dependencies, hook and options, with `env`
// (K=V entries) as its --env. An element of a job array is started again
// as a job array of that one index, so that it sees the same
// SLURM_ARRAY_TASK_ID.
StartOptions options_to_rerun(const TaskRecord& original, std::vector<std::string> env);

} // namespace bgtask
