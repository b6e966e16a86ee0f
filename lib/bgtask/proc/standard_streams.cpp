#include <bgtask/proc/standard_streams.hpp>

#include <cerrno>
#include <fcntl.h>
#include <unistd.h>

namespace bgtask {

int open_missing_standard_streams()
{
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) >= 0 || errno != EBADF) {
      continue;
    }
    // The lowest free descriptor is `fd` itself, since 0..fd-1 are open.
    int opened = -1;
    while ((opened = ::open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY)) < 0 && errno == EINTR) {
    }
    if (opened < 0) {
      return errno;
    }
    if (opened != fd) {
      // Not expected, but never leave a stray descriptor or a gap.
      const int moved = ::dup2(opened, fd);
      const int err = errno;
      ::close(opened);
      if (moved < 0) {
        return err;
      }
    }
  }
  return 0;
}

void redirect_standard_streams_to_null()
{
  const int null_fd = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null_fd >= 0) {
    ::dup2(null_fd, 0);
    ::dup2(null_fd, 1);
    ::dup2(null_fd, 2);
    if (null_fd > 2) {
      ::close(null_fd);
    }
  }
}

} // namespace bgtask
