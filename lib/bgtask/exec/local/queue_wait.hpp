#pragma once

#include <bgtask/core/task_record.hpp>
#include <bgtask/exec/executor.hpp>
#include <bgtask/store/dir_lock.hpp>
#include <bgtask/store/task_lock.hpp>
#include <bgtask/util/unique_fd.hpp>

#include <functional>
#include <optional>
#include <string>

namespace bgtask {

class TaskDir;

// True if a task must wait before its command may start: it names
// dependencies (--after) or a queue (--queue).
bool must_wait_for_turn(const TaskRecord& record);

// In the supervisor of such a task, before the command is forked:
// 1. writes the `queued` record (owner: this process) and calls `report`
//    with "0\n", so `start` prints the ID once the record is durable (or
//    with "1\n<reason>" and exits the process if it cannot be written);
// 2. waits until every --after task has succeeded;
// 3. with a queue, waits until this task is the oldest of the queue's
//    tasks waiting for a slot, fewer tasks of the queue run than it has
//    slots, and it holds a free slot lock (queue_settings.hpp).
// It sleeps on `signal_fd` and, while it is the first of its queue's line,
// on an inotify watch of the directory and a pidfd of each running task of
// the queue; behind another waiter, on that waiter's pidfd alone (the
// waiter rings it when it leaves the line); a safety re-check every 60 s. It
// polls (50 ms to 1 s backoff) only where inotify is missing or while a
// task it waits behind has no process to watch (an unsupervised command
// whose leader exited before the rest of its group). Records it looks at are
// reconciled, so a queued task whose supervisor died turns `lost` and
// stops holding the queue up; a dead supervisor never held a slot.
// Returns the slot (if any) once the command may start; it must stay
// alive until the command has exited. The inotify instance the wait used,
// if any, goes to `retired_watch` with its watch removed (the queue's next
// waiter may watch the directory at once), for the caller to close once the
// command runs (closing one takes 10 ms and more under load, which would
// delay the command and the next waiter). If a signal arrives on `signal_fd`
// (cancel) or a dependency ends without success, records the task as
// `cancelled` or `failed` without running it, runs its --on-exit hook and
// exits the process.
std::optional<DirLock> wait_for_turn(const TaskDir& dir, TaskLock& lock, TaskRecord& record,
                                     int signal_fd, Reconciler reconcile,
                                     const std::function<void(const std::string&)>& report,
                                     UniqueFd& retired_watch);

// Rings the waiter behind `record`, which just left its queue's line (it
// runs): the oldest younger task of the queue that waits for a slot,
// through a pidfd of its supervisor, verified (this boot, pid and start
// time). A SIGCHLD: every bgtask supervisor, waiting or running, takes it
// as "look again", never as a request to stop. Nothing for a task of no
// queue.
void ring_next_waiter(const TaskDir& dir, const TaskRecord& record);

// Saves the first `running` record, under the update lock. For a task that
// waited (its `waiting_for` is set), first re-reads the record and keeps
// what others wrote meanwhile (cancel request, progress, events), and
// clears `waiting_for`. Throws Error(failure).
void save_started_record(const TaskDir& dir, TaskLock& lock, TaskRecord& record);

} // namespace bgtask
