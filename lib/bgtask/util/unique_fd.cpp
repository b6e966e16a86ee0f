#include <bgtask/util/unique_fd.hpp>

#include <cerrno>
#include <fcntl.h>
#include <unistd.h>

namespace bgtask {

UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept
{
  if (this != &other) {
    close();
    m_fd = std::exchange(other.m_fd, -1);
  }
  return *this;
}

UniqueFd::~UniqueFd()
{
  close();
}

int UniqueFd::close()
{
  if (m_fd < 0) {
    return 0;
  }
  const int rc = ::close(std::exchange(m_fd, -1));
  return rc == 0 || errno == EINTR ? 0 : errno;
}

UniqueFd open_at(int dir_fd, const char* name, int flags, mode_t mode)
{
  int fd = -1;
  while ((fd = ::openat(dir_fd, name, flags, mode)) < 0 && errno == EINTR) {
  }
  return UniqueFd(fd);
}

bool make_pipe(UniqueFd& read_end, UniqueFd& write_end, int extra_flags)
{
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC | extra_flags) != 0) {
    return false;
  }
  read_end = UniqueFd(fds[0]);
  write_end = UniqueFd(fds[1]);
  return true;
}

} // namespace bgtask
