#pragma once

#include <bgtask/core/launch_request.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace bgtask {

class TaskDir;

// The start use case, shared by `start`, `run`, `rerun` and the MCP tool:
// admission (--dedupe, --max-running) under `start.lock`, the new task's ID
// and lock, and the launch through its executor. The plan comes from
// StartOptions (start_plan.hpp).

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

struct StartResult
{
  std::string id;               // the task (the first one, for --array)
  std::vector<std::string> ids; // every task started: `id`, or one per --array index, in order
  LaunchResult launch;
  bool duplicate = false; // --dedupe: `id` is an identical unfinished task; nothing was started
};

// Starts the task (with --array, one per index, all in one Slurm
// submission; their IDs sort in index order): resolves --after, and with
// --dedupe or --max-running holds `start.lock` while it reconciles and
// counts the unfinished tasks and until the new task's first record is
// durable, so concurrent starts that use these options see each other.
// Throws Error(limit_reached) when --max-running refuses, Error(usage) for
// an unknown --after ID or one the task's executor cannot wait for, or for
// a NUL byte in the command, its cwd, an --env value or the --on-exit hook,
// Error(limits_unavailable) when the resource limits cannot be enforced.
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
