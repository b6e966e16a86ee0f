#pragma once

#include <bgtask/store/task_lock.hpp>
#include <bgtask/util/timestamp.hpp>
#include <bgtask/util/unique_fd.hpp>

#include <optional>
#include <string>
#include <utility>

namespace bgtask {

class TaskDir;

// Hands out the IDs of new tasks in a task directory, each sorting after
// every ID the directory held (make_task_id), so that a wall clock set back
// does not reorder its tasks.
// The newest ID handed out is kept in `.cache/newest` with the boot it was
// written in, so that a start reads one small file, not the directory
// (newest_task_id). A hint that is missing, torn, of another boot or not the
// directory owner's alone is not used: the directory is scanned instead.
// The hint is made from the directory's second task on.
// The hint is not made durable; after a power cut the boot differs, so a
// scan decides. The object holds an exclusive flock on the hint while it
// lives: concurrent starts see each other's IDs.
class TaskIdClaim
{
public:
  // Reads the hint of `dir` for the boot `boot_id` (current_boot_id()), or
  // scans the directory. Throws Error(failure) if the scan fails.
  TaskIdClaim(const TaskDir& dir, std::string boot_id);

  // Creates the lock file `ID.lock` of a new task created now (the time is
  // stored in `at`), with an ID after every earlier one, and keeps that ID
  // as the newest. Retries with new IDs while one is taken; throws
  // Error(failure) if none can be had.
  std::pair<std::string, TaskLock> next(TimePoint& at);

private:
  // The ID in the hint, if it is valid and of this boot.
  std::optional<std::string> read_hint();
  void save_hint();

  const TaskDir& m_dir;
  std::string m_boot_id;
  UniqueFd m_hint; // locked; invalid when the hint is not to be used
  std::size_t m_hint_size = 0;
  std::string m_newest; // empty in a directory without tasks
};

} // namespace bgtask
