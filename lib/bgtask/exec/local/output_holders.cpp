#include <bgtask/exec/local/output_holders.hpp>
#include <bgtask/proc/raw_syscall.hpp>

#include <cerrno>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace bgtask {

int open_held_output(int dir_fd, const char* name, int output)
{
  const auto fd = static_cast<int>(
    raw::syscall(SYS_openat, dir_fd, name, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC));
  if (fd < 0) {
    return output;
  }
  struct stat own
  {
  };
  struct stat opened
  {
  };
  if (raw::syscall(SYS_fstat, fd, &opened) == 0 && raw::syscall(SYS_fstat, output, &own) == 0 &&
      opened.st_dev == own.st_dev && opened.st_ino == own.st_ino &&
      raw::syscall(SYS_flock, fd, LOCK_EX | LOCK_NB) == 0) {
    return fd;
  }
  raw::syscall(SYS_close, fd);
  return output;
}

bool output_held_elsewhere(int output)
{
  if (::flock(output, LOCK_EX | LOCK_NB) == 0) {
    ::flock(output, LOCK_UN);
    return false;
  }
  return errno == EWOULDBLOCK;
}

} // namespace bgtask
