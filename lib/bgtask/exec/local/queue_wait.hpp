#pragma once

#include <bgtask/core/task_record.hpp>
#include <bgtask/exec/executor.hpp>
#include <bgtask/store/dir_lock.hpp>
#include <bgtask/store/task_lock.hpp>
#include <bgtask/util/unique_fd.hpp>

#include <optional>
#include <string>

namespace bgtask {

class TaskDir;

// True if a task must wait before its command may start: it names
// dependencies (--after) or a queue (--queue).
bool must_wait_for_turn(const TaskRecord& record);

// Makes `record` this supervisor's `queued` record (owner, state, what it
// waits for, an event) and writes it as the task's first record. Throws
// Error(failure).
void save_queued_record(const TaskDir& dir, TaskLock& lock, TaskRecord& record);

// A queued task as its supervisor waits with it: `signal_fd` is the
// supervisor's signalfd, `reconcile` judges the records it waits for.
struct QueuedTask
{
  const TaskDir& dir;
  TaskLock& lock;
  TaskRecord& record; // its queued record, kept up to date
  int signal_fd;
  Reconciler reconcile;
};

// How the wait for a turn ended.
struct Turn
{
  enum class Outcome { run, removed, ended };
  Outcome outcome = Outcome::run;
  // Outcome::ended: the final state (cancelled, or failed: a dependency did
  // not succeed) and why; the caller writes it.
  TaskState state = TaskState::failed;
  std::string reason;
  // Outcome::run with a queue: the slot, held until the command has exited.
  std::optional<DirLock> slot;
  // The inotify instance the wait used, its watch removed: closed once the
  // command runs (closing one takes 10 ms and more under load).
  UniqueFd retired_watch;
};

// Waits until every --after task has succeeded and, with a queue, the task
// holds a free slot with no older task of its queue waiting for one
// (queue_admission.hpp). Ends early on a signal (cancel), a dependency that
// did not succeed, or the task's removal. How it sleeps: queue_wait.cpp.
Turn wait_for_turn(const QueuedTask& task);

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
