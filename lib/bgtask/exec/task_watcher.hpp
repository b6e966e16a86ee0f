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
// Without inotify it falls back to polling with a backoff from 50 ms to 1 s;
// with inotify a 5 s safety poll remains.
class TaskWatcher
{
public:
  TaskWatcher(const TaskDir& dir, WatchOutput watch_output);

  // Returns after a possible change to one of `tasks`, or after `limit`.
  void wait_for_change(const std::vector<TaskRecord>& tasks, std::optional<Milliseconds> limit);

  // True if inotify is in use (false: polling fallback).
  bool event_driven() const { return m_inotify.valid(); }

private:
  UniqueFd m_inotify;
  Milliseconds m_backoff{50};
};

} // namespace bgtask
