#include <bgtask/unique_fd.hpp>

#include <cerrno>
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

} // namespace bgtask
