#pragma once

#include <bgtask/core/launch_request.hpp>
#include <bgtask/core/start_options.hpp>
#include <bgtask/store/task_lock.hpp>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bgtask {

class TaskDir;

// What the local executor can tell about a task's processes right now
// (verdict.hpp turns it into a verdict).
struct Liveness
{
  bool same_host = true;         // written on this machine (is_this_machine: host or boot id)
  bool same_boot = true;         // ... and during this boot
  bool supervisor_alive = false; // the owner still holds the task
  bool command_alive = false;    // the command (or what is left of it) still runs
  bool pids_visible = true;      // this process sees the pids of the task's pid namespace
};

// A task about to be created: its ID, and its `ID.lock`, created and owned.
struct ClaimedTask
{
  std::string id;
  TaskLock lock;
};

// Whether `cancel` asks for the first time or again, after the grace period
// passed without a final record; `overdue` once the grace period and a
// margin (2 s) passed, `last` after a longer one (10 s): what still has no
// final record then is stopped another way where the executor can, or the
// executor says why it cannot.
enum class CancelAttempt { first, repeat, overdue, last };

// Runs tasks somewhere and keeps their records true. One implementation per
// kind of executor, picked by the record's `executor` field:
// - `local` (local_executor.hpp): a supervisor process on this host owns the
//   task; liveness comes from its lock and /proc;
// - `slurm` (slurm_executor.hpp): a Slurm batch job runs it; the controller
//   (then accounting) is the source of truth.
// Everything else (records, output files, commands) is shared.
class Executor
{
public:
  virtual ~Executor() = default;

  // Refuses, before anything is created, `start` options this executor
  // cannot carry out: throws Error(usage) naming them (or
  // Error(limits_unavailable) where the host cannot enforce them).
  virtual void check(const StartOptions& options) const = 0;

  // Starts the task described by `request` while `lock` (created and owned
  // by the caller) names it; returns once its first record (running, or
  // queued) is durable, or once the task is recorded as failed to start.
  virtual LaunchResult launch(const TaskDir& dir, TaskLock lock, LaunchRequest request) = 0;

  // Brings `records` (all of this executor) in line with reality, replacing
  // each with the current record; final ones are left alone. Asks the
  // outside world at most once for the whole batch, never for long: if it
  // does not answer, the records stay as they are and stderr says so.
  virtual void reconcile(const TaskDir& dir, std::vector<TaskRecord>& records) = 0;

  // Asks an unfinished task to stop (TERM, then KILL after `grace` where
  // the executor controls it) and returns without waiting for the final
  // record. Throws Error(failure) if the request cannot be delivered. For
  // an overdue or last attempt: nullopt to go on waiting, else what is
  // true of a task whose record cannot be made final now (its supervisor
  // does not answer), for the user.
  virtual std::optional<std::string> cancel(const TaskDir& dir, const TaskRecord& record,
                                            Milliseconds grace, CancelAttempt attempt) = 0;

  // The first attempt of `cancel` for each of `records` (all of this
  // executor), in order, each with `grace_of` its grace. An executor that
  // can end many tasks at once does (local: queued tasks, with one sync).
  // Returns the final records it wrote, which a waiter need not read.
  virtual std::vector<TaskRecord>
  cancel_all(const TaskDir& dir, const std::vector<const TaskRecord*>& records,
             const std::function<Milliseconds(const TaskRecord&)>& grace_of)
  {
    for (const TaskRecord* record : records) {
      cancel(dir, *record, grace_of(*record), CancelAttempt::first);
    }
    return {};
  }

  // How long a waiter may sleep before reconciling again, for tasks whose
  // changes nothing on this host announces; nullopt if the directory watch
  // and pidfds (task_watcher.hpp) see every change.
  virtual std::optional<Milliseconds> recheck_interval() const = 0;
};

// Brings an unfinished record in line with reality through whichever
// executor it names, and returns the current record (executors.hpp). Given
// to the local executor so its supervisor can judge dependencies of any
// executor without knowing the others.
using Reconciler = TaskRecord (*)(const TaskDir& dir, TaskRecord record);

} // namespace bgtask
