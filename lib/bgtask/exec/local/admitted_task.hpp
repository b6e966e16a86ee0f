#pragma once

#include <bgtask/core/task_record.hpp>
#include <bgtask/exec/executor.hpp>
#include <bgtask/store/dir_lock.hpp>
#include <bgtask/store/parked_tasks.hpp>
#include <bgtask/store/task_lock.hpp>

#include <optional>
#include <string>

namespace bgtask {

class TaskDir;

// A parked task claimed by a hand-off: its lock with the ownership taken,
// its record as read under it, its file in `.parked`, and, in a queue, the
// slot it was given (its lock held).
struct AdmittedTask
{
  TaskLock lock;
  TaskRecord record;
  ParkedEntry entry;
  std::optional<DirLock> slot;
  std::size_t slot_index = 0; // which of its queue's slots
};

// Starts the supervisor of an admitted task (launch_parked_task,
// parked_launch.hpp): handed to the hand-off, which a supervisor makes too.
using ParkedLauncher = void (*)(const TaskDir& dir, AdmittedTask task, Reconciler reconcile);

} // namespace bgtask
