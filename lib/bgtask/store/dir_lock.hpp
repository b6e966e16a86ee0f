#pragma once

#include <bgtask/util/unique_fd.hpp>

#include <optional>
#include <string>

namespace bgtask {

class TaskDir;

// The lock that guards the directory's own files: held by `start --dedupe`
// and `--max-running` while they look at the other tasks and create theirs,
// and by every writer of `fingerprint.key` and `queue-*.json`.
inline constexpr const char* k_start_lock_file = "start.lock";

// An exclusive flock(2) on a lock file in the task directory that belongs
// to no single task (`start.lock`, a queue's slot files). Created 0600 if
// missing, never followed through a symbolic link. Held until the object is
// destroyed or the process dies, whichever comes first.
class DirLock
{
public:
  // Waits for the lock. Throws Error(failure) naming the file.
  static DirLock acquire(const TaskDir& dir, const std::string& name);

  // Takes the lock if no one holds it; nullopt if someone does. Throws
  // Error(failure) if the file cannot be opened.
  static std::optional<DirLock> try_acquire(const TaskDir& dir, const std::string& name);

  // Takes over `fd` (made CLOEXEC again), inherited across an exec from the
  // process that locked `name` in `dir`: nullopt unless it is that file and
  // its lock is (or can be) held through it.
  static std::optional<DirLock> adopt(const TaskDir& dir, const std::string& name, UniqueFd fd);

  // The lock file's descriptor (CLOEXEC): a forked child that keeps it
  // keeps the lock.
  int fd() const { return m_fd.get(); }

  // Releases the lock now, for every descriptor of its open file
  // description (a forked child's copy too).
  void unlock();

private:
  explicit DirLock(UniqueFd fd)
    : m_fd(std::move(fd))
  {
  }

  UniqueFd m_fd;
};

// Removes the temps a crashed writer of `fingerprint.key` or `queue-*.json`
// left behind, if `start.lock` is free (no writer is at work); does
// nothing otherwise.
void remove_abandoned_dir_temps(const TaskDir& dir);

} // namespace bgtask
