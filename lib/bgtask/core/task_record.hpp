#pragma once

#include <bgtask/core/task_state.hpp>
#include <bgtask/util/timestamp.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace bgtask {

inline constexpr int k_record_schema = 1;

// The most events a record keeps; older progress events go first.
inline constexpr std::size_t k_max_events = 32;

// The supervisor that owns a running task.
struct OwnerIdentity
{
  int pid = 0;
  std::string instance;         // random token, unique per supervisor
  std::uint64_t start_time = 0; // field 22 of /proc/PID/stat (clock ticks since boot)
  std::string boot_id;
  std::string host;
};

// The command's process (the leader of its own process group).
struct ChildIdentity
{
  int pid = 0;
  int pgid = 0;
  std::uint64_t start_time = 0;
};

struct Progress
{
  std::optional<double> percent;
  std::optional<std::int64_t> current;
  std::optional<std::int64_t> total;
  std::optional<std::string> message;
  TimePoint updated_at;
};

struct TaskEvent
{
  std::string kind; // started, progress, cancel_requested, finished, reconciled, ...
  TimePoint at;
  std::optional<std::string> message;
};

struct OutputInfo
{
  std::string path;
  std::uint64_t bytes = 0;
  bool truncated = false;          // output went past --max-output (or the file could not take it)
  std::uint64_t dropped_bytes = 0; // how much of it was not kept
};

// A request by `cancel`, read by the supervisor when it is signalled.
struct CancelRequest
{
  TimePoint at;
  double grace_s = 5;
};

// What a queued task is waiting for (commands/start.cpp, task_gate.hpp).
enum class WaitingFor { after, slot };

// The batch job of a task run by the `slurm` executor (slurm_executor.hpp).
struct SlurmJobRef
{
  std::string job_id;                 // as `sbatch --parsable` printed it
  std::optional<std::string> cluster; // ClusterName of the controller that accepted it
};

// One task's record: the content of `ID.status.json`.
struct TaskRecord
{
  int schema = k_record_schema;
  std::uint64_t generation = 0; // bumped by every replace
  std::string id;
  std::optional<std::string> name;
  std::vector<std::string> command;
  bool shell = false;
  std::string cwd;
  std::vector<std::string> env_names; // names given with --env; values are never stored
  TaskState state = TaskState::running;
  std::optional<int> exit_code;
  std::optional<int> signal;
  std::optional<std::string> error;
  TimePoint created_at;
  std::optional<TimePoint> started_at;
  std::optional<TimePoint> finished_at;
  std::optional<double> duration_s;
  std::optional<double> timeout_s;
  double grace_s = 5;
  std::string executor = "local";
  std::optional<OwnerIdentity> owner;
  std::optional<ChildIdentity> child;
  std::optional<SlurmJobRef> slurm; // executor `slurm` only: its job (no owner, no child)
  bool unsupervised = false;        // the supervisor died while the command still ran
  std::optional<CancelRequest> cancel_request;
  std::optional<Progress> progress;
  std::vector<TaskEvent> events;
  OutputInfo output;
  std::optional<std::string> queue;       // --queue: runs only in one of the queue's slots
  std::vector<std::string> after;         // --after: tasks that must succeed first
  std::optional<WaitingFor> waiting_for;  // set while queued
  std::optional<std::string> on_exit;     // --on-exit: shell string run when the task ends
  std::optional<std::string> fingerprint; // keyed hash compared by --dedupe (task_fingerprint.hpp)
};

// Appends an event, dropping the oldest progress event (else the oldest
// event after the first) once the list holds k_max_events.
void add_event(TaskRecord& record, std::string kind, std::optional<std::string> message = {});

// Sets the final state and the fields that go with it (finished_at,
// duration_s, error; clears waiting_for) and appends a `finished` event.
void finish_record(TaskRecord& record, TaskState state, std::optional<std::string> error);

// The state, with the exit status or signal of a failed task:
// "failed (exit 3)", "failed (signal 9)", "succeeded".
std::string outcome_text(const TaskRecord& record);

} // namespace bgtask
