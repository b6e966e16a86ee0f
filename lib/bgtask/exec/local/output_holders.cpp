#include <bgtask/exec/local/output_holders.hpp>

#include <cerrno>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace bgtask {

int open_held_output(int dir_fd, const char* name, int output)
{
  const int fd = ::openat(dir_fd, name, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    return output;
  }
  struct stat own
  {
  };
  struct stat opened
  {
  };
  if (::fstat(fd, &opened) == 0 && ::fstat(output, &own) == 0 && opened.st_dev == own.st_dev &&
      opened.st_ino == own.st_ino && ::flock(fd, LOCK_EX | LOCK_NB) == 0) {
    return fd;
  }
  ::close(fd);
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
