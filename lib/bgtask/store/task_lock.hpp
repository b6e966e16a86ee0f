#pragma once

#include <bgtask/util/unique_fd.hpp>

#include <optional>
#include <string_view>

namespace bgtask {

class TaskDir;

// The lock file `ID.lock` of one task, with two open-file-description
// (OFD) locks on it:
// - the ownership lock (byte 0) is held by the task's supervisor for its
//   whole life, so "lock free" means "supervisor gone", whatever happened to
//   its pid; a reconciler that takes it may rewrite the record alone;
// - the update lock (byte 1) is held briefly by anyone who reads, changes
//   and replaces the record, so concurrent updates never lose each other;
// - the reader lock (byte 2) is held shared by waiters until they have read
//   the task's final record; `cleanup` leaves a task while it is held.
// Both are released by the kernel when the last descriptor of the open file
// description closes, including when the process dies.
class TaskLock
{
public:
  // Creates `ID.lock` (O_EXCL, 0600) and takes the ownership lock. Returns
  // nullopt if the file already exists, or if `cleanup` claimed it as an
  // orphan before the lock was taken (try another ID); throws Error(failure)
  // otherwise.
  static std::optional<TaskLock> create_owned(const TaskDir& dir, std::string_view id);

  // Opens an existing `ID.lock` without taking anything; nullopt if missing,
  // not a regular file or not ours. On a read-only file system (EROFS) it is
  // opened read-only (read_only()): the reader lock and ownership_held()
  // work, nothing that writes does. Throws Error(failure) when it exists but
  // cannot be opened (EIO, EMFILE, ...).
  static std::optional<TaskLock> open_existing(const TaskDir& dir, std::string_view id);
  // Takes over `fd` (made CLOEXEC again), inherited across an exec from the
  // process that claimed task `id`: nullopt unless it is `id`'s lock file in
  // `dir` and its ownership lock is (or can be) held through it.
  static std::optional<TaskLock> adopt_owned(const TaskDir& dir, std::string_view id, UniqueFd fd);

  // True if opened read-only (the task directory is on a read-only mount):
  // the ownership and update locks cannot be taken, and the record cannot
  // be rewritten.
  bool read_only() const { return m_read_only; }

  // Whether another open file description holds the ownership lock (the
  // supervisor lives), tested without taking it: for read-only locks, where
  // try_take_ownership cannot answer. Throws Error(failure) if the kernel
  // cannot tell.
  bool ownership_held() const;

  // Tries to take the ownership lock without waiting. True if taken (the
  // previous owner is gone); false if another open file description holds it.
  bool try_take_ownership();

  // Tries to take the update lock without waiting.
  bool try_lock_updates();

  // Waits for and takes the update lock. Throws Error(failure) on error
  // (EROFS for a read-only lock).
  void lock_updates();

  // Releases the update lock.
  void unlock_updates();

  // Takes the reader lock shared, without waiting; false if `cleanup` holds
  // it (it is removing the task).
  bool try_hold_for_reading();

  // Takes the reader lock exclusively, without waiting; false while a
  // waiter holds it.
  bool try_exclude_readers();

  // True while `ID.lock` in `dir` is still this open file (not removed by
  // `cleanup`, not replaced). Checked under the update lock, it tells a
  // writer that the task has not been removed.
  bool is_linked(const TaskDir& dir, std::string_view id) const;

  int fd() const { return m_fd.get(); }

private:
  explicit TaskLock(UniqueFd fd, bool read_only = false)
    : m_fd(std::move(fd)),
      m_read_only(read_only)
  {
  }

  UniqueFd m_fd;
  bool m_read_only = false;
};

// Holds the update lock of `lock` for its lifetime.
class UpdateLockGuard
{
public:
  explicit UpdateLockGuard(TaskLock& lock)
    : m_lock(lock)
  {
    m_lock.lock_updates();
  }
  UpdateLockGuard(const UpdateLockGuard&) = delete;
  UpdateLockGuard& operator=(const UpdateLockGuard&) = delete;
  ~UpdateLockGuard() { m_lock.unlock_updates(); }

private:
  TaskLock& m_lock;
};

} // namespace bgtask
