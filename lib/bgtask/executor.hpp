#pragma once

#include <bgtask/launch_request.hpp>
#include <bgtask/task_lock.hpp>

#include <string_view>

namespace bgtask {

class TaskDir;

// What an executor can tell about a task's processes right now.
struct Liveness
{
  bool same_host = true;         // the record was written on this host
  bool same_boot = true;         // ... and during this boot
  bool supervisor_alive = false; // the owner still holds the task
  bool command_alive = false;    // the command (or what is left of it) still runs
};

// Launches tasks and judges their liveness. One implementation per kind of
// executor (`local` today); the record's `executor` field picks it.
class Executor
{
public:
  virtual ~Executor() = default;

  // Starts the task described by `request` while `lock` (created and owned
  // by the caller) names it; returns once the running record is durable, or
  // once the task is recorded as failed to start.
  virtual LaunchResult launch(const TaskDir& dir, TaskLock lock, LaunchRequest request) = 0;

  // Judges a running record. `lock` is the task's lock; if the executor
  // finds the owner gone it leaves the ownership lock taken by `lock`, so the
  // caller may rewrite the record alone.
  virtual Liveness judge(const TaskRecord& record, TaskLock* lock) = 0;

  // Stops what is left of a task whose supervisor is gone: TERM to its
  // processes, KILL after `grace`. Returns once none is left.
  virtual void stop_orphaned(const TaskRecord& record, Milliseconds grace) = 0;
};

// The executor named by a record's `executor` field; throws Error(failure)
// for an unknown name.
Executor& executor_for(std::string_view name);

} // namespace bgtask
