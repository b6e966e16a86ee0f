#pragma once

#include <bgtask/cli/command_line.hpp>
#include <bgtask/core/launch_request.hpp>
#include <bgtask/exec/slurm/slurm_array.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace bgtask {

class TaskDir;

// How `start` and `run` start a task: the options they share, what those
// ask for, and the start itself.

// Adds --env and --env-file (shared by `start` and `rerun`) to `options`.
void add_env_options(po::options_description& options);

// The K=V entries --env-file and --env ask for, one per name (the last one
// given wins; --env after --env-file): `--env NAME` takes NAME's value from
// this process's environment. Throws Error(usage) for a malformed entry, an
// unreadable file or an unset NAME; messages never show a value.
std::vector<std::string> env_from_options(const po::variables_map& vm);

// The output bound of a task started without --max-output and
// $BGTASK_MAX_OUTPUT (README, "--max-output").
inline constexpr std::uint64_t k_default_max_output = 64 * 1024 * 1024;

// Adds the options of `start` to `options`.
void add_start_options(po::options_description& options);

// Adds --array (`start` only: `run` and the MCP tool start one task).
void add_array_option(po::options_description& options);

// What the options ask for, checked.
struct StartPlan
{
  LaunchRequest request;
  std::optional<std::size_t> slots;       // --slots: stored as the queue's slot count
  std::vector<std::string> after;         // --after, as given (ID prefixes)
  bool dedupe = false;                    // --dedupe
  std::optional<std::size_t> max_running; // --max-running, else $BGTASK_MAX_RUNNING
  std::optional<SlurmArraySpec> array;    // --array: one Slurm job array, a task per index
};

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

struct StartResult
{
  std::string id;               // the task (the first one, for --array)
  std::vector<std::string> ids; // every task started: `id`, or one per --array index, in order
  LaunchResult launch;
  bool duplicate = false; // --dedupe: `id` is an identical unfinished task; nothing was started
};

// Starts the task (with --array, one per index, all in one Slurm
// submission; their IDs sort in index order): resolves --after, and with --dedupe or --max-running
// holds `start.lock` while it reconciles and counts the unfinished tasks
// and until the new task's first record is durable, so concurrent starts
// that use these options see each other. Throws Error(limit_reached) when
// --max-running refuses, Error(usage) for an unknown --after ID.
StartResult start_task(const TaskDir& dir, StartPlan plan);

// Throws Error(failure, "cannot start the task: ...") when the launch failed
// and no durable record names the task: it has no record, or the directory
// entry of the one it has cannot be made durable (fsync of the directory
// fails, as after a power cut). Callers show the ID only after this returns.
void require_durable_record(const TaskDir& dir, const StartResult& result);

// Throws Error(the launch's exit code, "task ID failed to start: ...") when
// the launch failed.
void require_launched(const StartResult& result);

} // namespace bgtask
