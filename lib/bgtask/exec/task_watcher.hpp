#pragma once

#include <bgtask/core/task_record.hpp>
#include <bgtask/util/duration.hpp>
#include <bgtask/util/unique_fd.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

namespace bgtask {

class TaskDir;

enum class WatchOutput { yes, no };

// Where a watcher sees changes: through an inotify watch of the task
// directory, or only through watched processes and extra fds (no inotify
// instance is held, and a wait sleeps until one of those or the safety poll
// ends it). See TaskWatcher::watch_events.
enum class WatchEvents { directory, none };

struct WatcherOptions
{
  WatchOutput output = WatchOutput::no;        // growing output files are changes too
  Milliseconds safety_poll{5000};              // the longest sleep with inotify working
  WatchEvents events = WatchEvents::directory; // how the watcher begins
};

// Why a wait ended.
enum class Wake {
  changed,     // an event, a watched process exited, an extra fd asked to wake
  polled,      // the backoff poll ended (no inotify, or a task had no process)
  safety_poll, // the safety poll ended: events may have been missed
  limit,       // the caller's limit
  interrupted, // a caught interrupt, or the reader of stdout went away
};

// The process whose exit means the record is about to change: the
// supervisor, or the command once the supervisor is gone; none for a final
// record. Verified after opening, so a reused pid never stands in for it.
UniqueFd open_watched_process(const TaskRecord& record);

// Sleeps until tasks may have changed, without polling: an inotify watch
// on the task directory reports replaced and deleted records (and, with
// WatchOutput::yes, growing output files), and a pidfd per task reports the
// exit of its supervisor (or, for an unsupervised task, of its command).
// Without inotify, or while an unfinished task has no process left to watch
// (it died before the watch began), it polls with a backoff from 50 ms to 1 s;
// with inotify the safety poll remains. With watch_interrupts, a caught
// interrupt (proc/interrupts.hpp), and with watch_reader, the reader of
// stdout going away, end a wait at once too. The CLI's waits and a queued
// task's wait for its turn (exec/local/queue_wait) both use it.
class TaskWatcher
{
public:
  TaskWatcher(const TaskDir& dir, WatchOutput watch_output);
  TaskWatcher(const TaskDir& dir, const WatcherOptions& options);

  // Returns after a possible change to one of `tasks`, after `limit`, once
  // a caught interrupt has arrived (interrupt_signal() != 0; only after
  // watch_interrupts), or once the watched reader is gone (reader_gone());
  // the last two return at once on every later call.
  Wake wait_for_change(const std::vector<TaskRecord>& tasks, std::optional<Milliseconds> limit);

  // The same in two steps: watch_task for each task to watch, then wait.
  // watch_task returns false if `task` is unfinished but has no process to
  // watch (the next wait then polls).
  bool watch_task(const TaskRecord& task);
  Wake wait(std::optional<Milliseconds> limit);

  // Decides which inotify events are changes: called with each event's
  // file name (empty for the directory itself) and mask. By default a
  // record or output file, or lost events (IN_Q_OVERFLOW), are.
  using EventFilter = std::function<bool(std::string_view name, std::uint32_t mask)>;
  void filter_events(EventFilter filter) { m_filter = std::move(filter); }

  // Also wakes when `fd` is readable and `ready()`, called then, says so.
  void watch_fd(int fd, std::function<bool()> ready);

  // Also watches `fd` (stdout): when it is a pipe or socket whose reading
  // end was closed (POLLERR/POLLHUP), waits end and reader_gone() is true.
  // Has no effect on a regular file.
  void watch_reader(int fd) { m_reader = fd; }

  // Also wakes for caught interrupts (catch_interrupts must have been called).
  void watch_interrupts() { m_interrupts = true; }
  bool watches_interrupts() const { return m_interrupts; }

  // True once the reader of the fd given to watch_reader went away.
  bool reader_gone() const { return m_reader_gone; }

  // True if inotify is in use (false: polling fallback, or Events::none).
  bool event_driven() const { return m_inotify.valid(); }

  // Where the next waits see changes (WatchEvents; the options say where
  // the first ones do). A queue's waiters behind the first one use none, so
  // that a queue holds one inotify instance, not one per waiter, and a
  // rename wakes one waiter. True if a watch was opened now: what changed
  // before it is the caller's to look at first.
  using Events = WatchEvents;
  bool watch_events(Events events);

  // Switches to Events::none and hands the inotify instance over (invalid
  // if none was open) with its watch removed, so it sees nothing from now
  // on: removing the watch is quick, but closing the instance waits for the
  // kernel to retire it (10 ms and more under load), which the caller may
  // want to do later.
  UniqueFd release_events();

private:
  struct ExtraFd
  {
    int fd;
    std::function<bool()> ready;
  };

  bool drain_relevant();
  void open_inotify();

  int m_dir_fd;
  std::uint32_t m_mask;
  Events m_events;
  UniqueFd m_inotify;
  int m_watch = -1; // the directory's watch descriptor in m_inotify
  Milliseconds m_safety_poll;
  Milliseconds m_backoff{50};
  EventFilter m_filter;
  std::vector<ExtraFd> m_extra;
  std::vector<UniqueFd> m_processes; // watched in the next wait
  bool m_blind = false;              // a task of the next wait has no process to watch
  int m_reader = -1;
  bool m_interrupts = false;
  bool m_reader_gone = false;
};

} // namespace bgtask
