#pragma once

#include <bgtask/core/task_state.hpp>
#include <bgtask/util/duration.hpp>
#include <bgtask/util/monotonic_clock.hpp>
#include <bgtask/util/timestamp.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
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
  // The inode of the supervisor's pid namespace (/proc/self/ns/pid): its
  // pids mean nothing in another one. 0: not recorded.
  std::uint64_t pid_ns = 0;
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

// How --max-output bounds a running task's output. The command writes the
// file and its middle is punched out (head and tail kept), or, where the
// file system cannot punch holes, the file is cut back to its head
// (head_only). head_via_pipe: a record of an earlier bgtask, whose command
// wrote to a pipe the supervisor copied the head from.
enum class OutputRetention { head_and_tail, head_only, head_via_pipe };

struct OutputInfo
{
  std::string path;
  std::uint64_t bytes = 0;
  bool truncated = false;          // output went past --max-output (or the file could not take it)
  std::uint64_t dropped_bytes = 0; // how much of it was not kept
  // Where the dropped bytes began in the output stream (the end of the kept
  // head); unset when nothing was dropped.
  std::optional<std::uint64_t> dropped_at;
  std::optional<OutputRetention> retention; // unset: not bounded (or not known yet)
};

// The executors a record's `executor` field may name (exec/executors.hpp):
// `local` runs the task under a supervisor on this host, `slurm` as a
// Slurm batch job. The one list of executor names.
inline constexpr std::string_view k_local_executor = "local";
inline constexpr std::string_view k_slurm_executor = "slurm";
inline constexpr std::array<std::string_view, 2> k_executor_names{k_local_executor,
                                                                  k_slurm_executor};

// The time between TERM and KILL when a task is stopped, unless `--grace`
// says otherwise (a record without `grace_s` has this one).
inline constexpr Milliseconds k_default_grace{5000};

// A request by `cancel`, read by the supervisor when it is signalled.
struct CancelRequest
{
  TimePoint at;
  double grace_s = to_seconds(k_default_grace);
};

// What a queued task is waiting for (commands/start.cpp, exec/local/queue_wait.hpp).
enum class WaitingFor { after, slot };

// The batch job of a task run by the `slurm` executor (slurm_executor.hpp).
struct SlurmJobRef
{
  std::string job_id; // as `sbatch --parsable` printed it (`ARRAYJOB_INDEX` for an array element)
  std::optional<std::string> cluster; // ClusterName of the controller that accepted it
  // While the job is pending: Slurm's reason (`Priority`, `JobHeldUser`,
  // `PartitionDown`, `Dependency`, ...); absent once it runs.
  std::optional<std::string> pending_reason;
  // Since when neither the controller nor accounting has known the job; it
  // is marked lost only once that has lasted a grace period.
  std::optional<TimePoint> missing_since;
  // The job's name, by which bgtask tells its job from another one with the
  // same id; absent in records of earlier versions, whose jobs are named
  // `bgtask-ID`.
  std::optional<std::string> job_name;
  // For an element of a job array (`start --array`): its index; job_id is
  // then `ARRAYJOB_INDEX`.
  std::optional<std::uint32_t> array_index;
};

// --- Lifecycle: retries, rerun, pause and resource limits -----------------

// --retry: when and how often the supervisor runs a failed command again
// within the same task (retry_policy.hpp decides).
struct RetryPolicy
{
  int max_retries = 0;            // the command runs at most 1 + max_retries times
  double delay_s = 0;             // --retry-delay: the pause before each new attempt
  std::vector<int> on_exit_codes; // --retry-on CODES; empty: any failure (exit or signal)
  bool on_timeout = false;        // --retry-on timed_out: also after a timed-out attempt
};

// One run of the command within its task, as the supervisor saw it end.
struct Attempt
{
  int number = 1; // 1 for the first run; BGTASK_ATTEMPT in its environment
  TimePoint started_at;
  std::optional<TimePoint> finished_at;
  std::optional<int> exit_code;
  std::optional<int> signal;
  std::optional<std::string> outcome; // succeeded, failed, timed_out, cancelled, oom
};

// --memory-max, --pids-max, --cpu-max: limits on the task's whole process
// tree, enforced by its own cgroup (proc/cgroup.hpp).
struct ResourceLimits
{
  std::optional<std::uint64_t> memory_max; // bytes
  std::optional<std::uint64_t> pids_max;   // processes and threads
  std::optional<double> cpu_max;           // CPUs (0.5 = half of one)

  bool any() const { return memory_max || pids_max || cpu_max; }
};

// The options of `start` that are not otherwise in the record, kept so that
// `rerun` can start the same task again (values of --env never are).
struct LaunchOptions
{
  std::optional<std::uint64_t> max_output;
  std::optional<std::string> partition;  // slurm executor only
  std::optional<std::string> slurm_time; // slurm executor only
  std::vector<std::string> slurm_args;   // slurm executor only
  std::optional<RetryPolicy> retry;
  ResourceLimits limits;
  // `run` with stderr apart from stdout: the command's stderr went to the
  // caller's stderr, not into ID.output (never repeated by `rerun`).
  bool stderr_apart = false;
  bool pty = false; // --pty: stdout and stderr were a pseudo-terminal
};

// Whether the task's processes are stopped by `bgtask pause`.
struct PauseInfo
{
  bool requested = false;         // set by pause, cleared by resume (the supervisor acts)
  bool paused = false;            // the supervisor stopped the tree
  std::optional<TimePoint> since; // when the tree was stopped
  double paused_s = 0;            // total time spent paused before `since`
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
  std::optional<MonotonicMark> started_clock; // CLOCK_BOOTTIME at started_at, for durations
  std::optional<TimePoint> finished_at;
  std::optional<double> duration_s;
  std::optional<double> timeout_s;
  double grace_s = to_seconds(k_default_grace);
  std::string executor{k_local_executor};
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
  std::optional<std::string> slot;        // the name of its queue's slot it runs in
  std::optional<std::string> group;       // a fan-out's first task (--each-line, local --array)
  std::optional<std::string> on_exit;     // --on-exit: shell string run when the task ends
  std::optional<std::string> fingerprint; // keyed hash compared by --dedupe (task_fingerprint.hpp)
  // Lifecycle (JSON: options, attempts, retry_at, rerun_of, pause, cgroup, memory_peak, reason).
  LaunchOptions options;
  std::vector<Attempt> attempts;       // every finished attempt, when retries were asked for
  std::optional<TimePoint> retry_at;   // set while waiting for the next attempt
  std::optional<std::string> rerun_of; // `rerun`: the task this one repeats
  PauseInfo pause;
  std::optional<std::string> cgroup;        // the task's cgroup while it has one
  std::optional<std::uint64_t> memory_peak; // bytes, when the kernel reports it
  std::optional<std::string> reason;        // why it ended, beyond the state: `oom`
};

// Appends an event, dropping the oldest progress event (else the oldest
// event after the first) once the list holds k_max_events.
void add_event(TaskRecord& record, std::string kind, std::optional<std::string> message = {});

// Sets the final state and the fields that go with it (finished_at,
// duration_s from run_time, error; clears waiting_for) and appends a
// `finished` event.
void finish_record(TaskRecord& record, TaskState state, std::optional<std::string> error);

// How long the task has run since started_at: by the monotonic clock when
// `started_clock` was read from this process's clock (same boot, same time
// namespace), so a wall-clock jump changes nothing; else by the wall clock,
// never negative. Zero if it never started.
Milliseconds run_time(const TaskRecord& record);

// The state, with the exit status or signal of a failed task:
// "failed (exit 3)", "failed (signal 9)", "succeeded".
std::string outcome_text(const TaskRecord& record);

} // namespace bgtask
