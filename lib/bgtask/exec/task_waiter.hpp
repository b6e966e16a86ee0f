#pragma once

#include <bgtask/core/task_record.hpp>
#include <bgtask/util/duration.hpp>

#include <optional>
#include <string>
#include <vector>

namespace bgtask {

class TaskDir;
class TaskWatcher;

enum class WaitMode { all, any };

// Whether a caught interrupt (proc/interrupts.hpp) ends a wait.
enum class Interrupts { end_wait, ignore };

// Why wait_for_tasks returned.
enum class WaitEnd {
  finished,    // every task (WaitMode::any: one) is final
  gave_up,     // `limit` passed first
  interrupted, // a caught interrupt arrived first (proc/interrupts.hpp)
};

struct WaitResult
{
  std::vector<TaskRecord> records; // current records, in the order of the IDs asked for
  WaitEnd end = WaitEnd::finished;
};

// Blocks until every task in `ids` (WaitMode::any: one of them) is final,
// reconciling as it goes, so a supervisor killed meanwhile ends the wait
// with `lost` at once; or until `limit`, or a caught interrupt. Returns within milliseconds of the
// final record being written (task_watcher.hpp). Holds each task's reader
// lock meanwhile, so `cleanup` does not remove a task before its final
// record was read here. Throws Error(removed) if a task was removed before
// that lock was taken, Error(failure) if a record becomes corrupt.
WaitResult wait_for_tasks(const TaskDir& dir, const std::vector<std::string>& ids, WaitMode mode,
                          std::optional<Milliseconds> limit,
                          Interrupts interrupts = Interrupts::ignore);

// As above, with the caller's watcher (its interrupts as the caller set
// them): for a series of waits, since every watcher keeps an inotify
// instance until the process exits. `read_since_watch`: records of some of
// `ids`, in their order, read after `watcher` began; the first look takes
// the queued and final ones as they are (what changed since is an event the
// watcher holds), and a task whose final record it holds is not locked.
WaitResult wait_for_tasks(TaskWatcher& watcher, const TaskDir& dir,
                          const std::vector<std::string>& ids, WaitMode mode,
                          std::optional<Milliseconds> limit,
                          std::vector<TaskRecord> read_since_watch = {});

// Loads and reconciles the record of a resolved ID; throws Error(removed) if
// it has disappeared, Error(failure) if it is corrupt.
TaskRecord load_current_record(const TaskDir& dir, const std::string& id);

// load_current_record for several IDs, reconciled as one batch
// (reconcile_records), in the order given. `read`: records of some of
// `ids`, in their order, taken as they are rather than read again.
std::vector<TaskRecord> load_current_records(const TaskDir& dir,
                                             const std::vector<std::string>& ids,
                                             std::vector<TaskRecord> read = {});

// The longest a waiter on `records` may sleep before reconciling again
// (Executor::recheck_interval of their executors); nullopt if the task
// watcher sees every change.
std::optional<Milliseconds> recheck_interval(const std::vector<TaskRecord>& records);

} // namespace bgtask
