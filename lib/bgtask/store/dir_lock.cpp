#include <bgtask/store/dir_lock.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/store/task_files.hpp>
#include <bgtask/util/dir_stream.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/file_locks.hpp>

#include <cerrno>
#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace bgtask {

namespace {

UniqueFd open_lock_file(const TaskDir& dir, const std::string& name)
{
  // Read-write where allowed: a slot's holder writes its task's ID in it.
  constexpr int flags = O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK;
  UniqueFd fd(::openat(dir.fd(), name.c_str(), O_RDWR | flags, 0600));
  if (!fd && (errno == EROFS || errno == EACCES)) {
    fd = UniqueFd(::openat(dir.fd(), name.c_str(), O_RDONLY | flags, 0600));
  }
  if (!fd) {
    throw_system("cannot open " + dir.file_path(name), errno);
  }
  struct stat st
  {
  };
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    throw Error(ExitCode::failure, dir.file_path(name) + " is not a regular file");
  }
  return fd;
}

// 0, or the errno of flock (EWOULDBLOCK when held elsewhere).
int lock_file(int fd, int operation)
{
  while (::flock(fd, operation) != 0) {
    if (errno != EINTR) {
      return errno;
    }
  }
  return 0;
}

} // namespace

DirLock DirLock::acquire(const TaskDir& dir, const std::string& name)
{
  UniqueFd fd = open_lock_file(dir, name);
  // Never a blocking flock: a stopped holder would hold this process for ever.
  int err = 0;
  const bool taken = retry_until_taken(
    [&] {
      err = lock_file(fd.get(), LOCK_EX | LOCK_NB);
      return err != EWOULDBLOCK;
    },
    k_lock_patience);
  if (!taken) {
    throw Error(ExitCode::lock_busy, "cannot lock " + dir.file_path(name) + ": held for " +
                                       format_duration(k_lock_patience) + " by " +
                                       describe_lock_holders(lock_holders(fd.get(), 0)));
  }
  if (err != 0) {
    throw_system("cannot lock " + dir.file_path(name), err);
  }
  return DirLock(std::move(fd));
}

std::optional<DirLock> DirLock::adopt(const TaskDir& dir, const std::string& name, UniqueFd fd)
{
  struct stat ours
  {
  };
  struct stat named
  {
  };
  if (!fd || ::fcntl(fd.get(), F_SETFD, FD_CLOEXEC) != 0 || ::fstat(fd.get(), &ours) != 0 ||
      ::fstatat(dir.fd(), name.c_str(), &named, AT_SYMLINK_NOFOLLOW) != 0 ||
      ours.st_dev != named.st_dev || ours.st_ino != named.st_ino ||
      lock_file(fd.get(), LOCK_EX | LOCK_NB) != 0) {
    return std::nullopt;
  }
  return DirLock(std::move(fd));
}

void DirLock::unlock()
{
  if (m_fd) {
    static_cast<void>(lock_file(m_fd.get(), LOCK_UN));
  }
}

std::optional<DirLock> DirLock::try_acquire(const TaskDir& dir, const std::string& name)
{
  UniqueFd fd = open_lock_file(dir, name);
  const int err = lock_file(fd.get(), LOCK_EX | LOCK_NB);
  if (err == EWOULDBLOCK) {
    return std::nullopt;
  }
  if (err != 0) {
    throw_system("cannot lock " + dir.file_path(name), err);
  }
  return DirLock(std::move(fd));
}

void remove_abandoned_dir_temps(const TaskDir& dir)
{
  std::vector<std::string> doomed;
  {
    DirStream stream = DirStream::open_at(dir.fd());
    if (!stream) {
      return;
    }
    while (const dirent* entry = stream.next()) {
      const std::string_view name(entry->d_name);
      const bool dir_temp =
        (name.starts_with(".fingerprint.key.") || name.starts_with(".queue-")) &&
        name.ends_with(".tmp") && !parse_task_file_name(name);
      if (dir_temp) {
        doomed.emplace_back(name);
      }
    }
  }
  // Writers create the lock before their temp, so it exists if a temp does.
  std::optional<DirLock> guard;
  try {
    guard = doomed.empty() ? std::nullopt : DirLock::try_acquire(dir, k_start_lock_file);
  } catch (const Error&) {
    return;
  }
  if (!guard) {
    return;
  }
  for (const auto& name : doomed) {
    ::unlinkat(dir.fd(), name.c_str(), 0);
  }
}

} // namespace bgtask
