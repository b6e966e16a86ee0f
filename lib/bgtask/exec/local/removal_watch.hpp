#pragma once

#include <chrono>
#include <string>

namespace bgtask {

class TaskDir;

// Tells a running supervisor that its task was removed under it: the task
// directory deleted (`rm -rf`, its link count is 0) or the task's own record
// deleted. Such a task can no longer be seen, waited for or cancelled, so
// its supervisor stops the command and exits (RELIABILITY.md).
//
// It looks every k_interval (an fstat of the directory and a read of the
// record) rather than through inotify: a running task would otherwise hold
// an inotify instance for its whole life, and a user has only 128 of them
// by default, shared with every other program they run.
class RemovalWatch
{
public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::chrono::seconds k_interval{2};

  RemovalWatch(const TaskDir& dir, const std::string& id);

  // When removed() looks next.
  Clock::time_point next_look() const { return m_next; }

  // Looks if a look is due at `now`: true once the task was removed.
  bool removed(Clock::time_point now);

private:
  const TaskDir& m_dir;
  std::string m_status_name; // the record's file name
  Clock::time_point m_next;
};

} // namespace bgtask
