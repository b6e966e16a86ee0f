#include <bgtask/store/task_dir.hpp>
#include <bgtask/store/task_files.hpp>
#include <bgtask/store/task_lock.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/file_locks.hpp>

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace bgtask {

namespace {

constexpr off_t k_ownership_byte = 0;
constexpr off_t k_update_byte = 1;
constexpr off_t k_reader_byte = 2;

// Sets or clears a lock without waiting: 0, or the errno of fcntl (EAGAIN
// when held elsewhere).
int set_lock(int fd, short type, off_t byte)
{
  struct flock fl
  {
  };
  fl.l_type = type;
  fl.l_whence = SEEK_SET;
  fl.l_start = byte;
  fl.l_len = 1;
  while (::fcntl(fd, F_OFD_SETLK, &fl) != 0) {
    if (errno != EINTR) {
      return errno;
    }
  }
  return 0;
}

} // namespace

std::optional<TaskLock> TaskLock::create_owned(const TaskDir& dir, std::string_view id)
{
  const auto name = lock_file_name(id);
  UniqueFd fd(
    ::openat(dir.fd(), name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd) {
    if (errno == EEXIST) {
      return std::nullopt;
    }
    throw_system("cannot create " + dir.file_path(name), errno);
  }
  if (int err = set_lock(fd.get(), F_WRLCK, k_ownership_byte)) {
    if (err == EAGAIN) {
      return std::nullopt; // `cleanup` took it as an orphan before we locked it
    }
    throw_system("cannot lock " + dir.file_path(name), err);
  }
  // `cleanup` may also have removed it before we locked it: then the name is
  // gone or names another file, and this ID is not ours.
  TaskLock lock(std::move(fd));
  if (!lock.is_linked(dir, id)) {
    return std::nullopt;
  }
  return lock;
}

std::optional<TaskLock> TaskLock::open_existing(const TaskDir& dir, std::string_view id)
{
  const auto name = lock_file_name(id);
  constexpr int k_flags = O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK;
  UniqueFd fd = open_at(dir.fd(), name.c_str(), O_RDWR | k_flags);
  bool read_only = false;
  if (!fd && errno == EROFS) {
    // A read-only mount or snapshot: still enough to tell whether the
    // supervisor lives and to hold the reader lock.
    fd = open_at(dir.fd(), name.c_str(), O_RDONLY | k_flags);
    read_only = true;
  }
  if (!fd) {
    switch (errno) {
    case ENOENT: // missing
    case ELOOP:  // a symbolic link
    case EISDIR:
    case ENXIO:
    case ENODEV:
    case EACCES: // not ours
    case EPERM:
      return std::nullopt;
    default:
      // Not knowing whether the owner lives must not pass for "no owner".
      throw_system("cannot open " + dir.path() + "/" + name, errno);
    }
  }
  struct stat st
  {
  };
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return std::nullopt;
  }
  return TaskLock(std::move(fd), read_only);
}

bool TaskLock::ownership_held() const
{
  struct flock fl
  {
  };
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  fl.l_start = k_ownership_byte;
  fl.l_len = 1;
  if (::fcntl(m_fd.get(), F_OFD_GETLK, &fl) != 0) {
    throw_system("cannot test the lock of a task", errno);
  }
  return fl.l_type != F_UNLCK;
}

std::optional<TaskLock> TaskLock::adopt_owned(const TaskDir& dir, std::string_view id, UniqueFd fd)
{
  TaskLock lock(std::move(fd));
  if (!lock.m_fd || ::fcntl(lock.m_fd.get(), F_SETFD, FD_CLOEXEC) != 0 ||
      !lock.is_linked(dir, id) || !lock.try_take_ownership()) {
    return std::nullopt;
  }
  return lock;
}

bool TaskLock::try_take_ownership()
{
  return set_lock(m_fd.get(), F_WRLCK, k_ownership_byte) == 0;
}

bool TaskLock::try_lock_updates()
{
  return set_lock(m_fd.get(), F_WRLCK, k_update_byte) == 0;
}

void TaskLock::lock_updates()
{
  const std::string what = "cannot lock a task record for update";
  if (m_read_only) {
    throw_system(what, EROFS);
  }
  // Never F_OFD_SETLKW: a stopped holder would hold this process for ever.
  int err = 0;
  const bool taken = retry_until_taken(
    [&] {
      err = set_lock(m_fd.get(), F_WRLCK, k_update_byte);
      return err != EAGAIN;
    },
    k_lock_patience);
  if (!taken) {
    throw Error(ExitCode::lock_busy,
                what + ": held for " + format_duration(k_lock_patience) + " by " +
                  describe_lock_holders(lock_holders(m_fd.get(), k_update_byte)));
  }
  if (err != 0) {
    throw_system(what, err);
  }
}

void TaskLock::unlock_updates()
{
  set_lock(m_fd.get(), F_UNLCK, k_update_byte);
}

bool TaskLock::try_hold_for_reading()
{
  return set_lock(m_fd.get(), F_RDLCK, k_reader_byte) == 0;
}

bool TaskLock::try_exclude_readers()
{
  return set_lock(m_fd.get(), F_WRLCK, k_reader_byte) == 0;
}

bool TaskLock::is_linked(const TaskDir& dir, std::string_view id) const
{
  struct stat ours
  {
  };
  struct stat named
  {
  };
  return ::fstat(m_fd.get(), &ours) == 0 &&
         ::fstatat(dir.fd(), lock_file_name(id).c_str(), &named, AT_SYMLINK_NOFOLLOW) == 0 &&
         ours.st_dev == named.st_dev && ours.st_ino == named.st_ino;
}

} // namespace bgtask
