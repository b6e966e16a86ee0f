#pragma once

#include <bgtask/core/task_record.hpp>
#include <bgtask/util/duration.hpp>
#include <bgtask/util/unique_fd.hpp>

#include <optional>
#include <vector>

namespace bgtask {

class TaskDir;

enum class WatchOutput { yes, no };

// Sleeps until tasks may have changed, without polling: an inotify watch
// on the task directory reports replaced records (and, with
// WatchOutput::yes, growing output files), and a pidfd per task reports the
// exit of its supervisor (or, for an unsupervised task, of its command).
// Without inotify, or while an unfinished task has no process left to watch
// (it died before the watch began), it polls with a backoff from 50 ms to 1 s;
// with inotify a 5 s safety poll remains. With watch_interrupts, a caught
// interrupt (proc/interrupts.hpp), and with watch_reader, the reader of
// stdout going away, end a wait at once too.
class TaskWatcher
{
public:
  TaskWatcher(const TaskDir& dir, WatchOutput watch_output);

  // Returns after a possible change to one of `tasks`, after `limit`, once
  // a caught interrupt has arrived (interrupt_signal() != 0; only after
  // watch_interrupts), or once the watched reader is gone (reader_gone());
  // the last two return at once on every later call.
  void wait_for_change(const std::vector<TaskRecord>& tasks, std::optional<Milliseconds> limit);

  // Also watches `fd` (stdout): when it is a pipe or socket whose reading
  // end was closed (POLLERR/POLLHUP), waits end and reader_gone() is true.
  // Has no effect on a regular file.
  void watch_reader(int fd) { m_reader = fd; }

  // Also wakes for caught interrupts (catch_interrupts must have been called).
  void watch_interrupts() { m_interrupts = true; }

  // True once the reader of the fd given to watch_reader went away.
  bool reader_gone() const { return m_reader_gone; }

  // True if inotify is in use (false: polling fallback).
  bool event_driven() const { return m_inotify.valid(); }

private:
  UniqueFd m_inotify;
  Milliseconds m_backoff{50};
  int m_reader = -1;
  bool m_interrupts = false;
  bool m_reader_gone = false;
};

} // namespace bgtask
