#include <bgtask/util/dir_stream.hpp>

#include <cerrno>
#include <fcntl.h>
#include <unistd.h>

namespace bgtask {

DirStream& DirStream::operator=(DirStream&& other) noexcept
{
  if (this != &other) {
    if (m_stream != nullptr) {
      ::closedir(m_stream);
    }
    m_stream = std::exchange(other.m_stream, nullptr);
  }
  return *this;
}

DirStream::~DirStream()
{
  if (m_stream != nullptr) {
    ::closedir(m_stream);
  }
}

DirStream DirStream::open_at(int dir_fd)
{
  const int fd = ::openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    return DirStream();
  }
  DIR* stream = ::fdopendir(fd);
  if (stream == nullptr) {
    const int err = errno;
    ::close(fd);
    errno = err;
  }
  return DirStream(stream);
}

DirStream DirStream::open(const char* path)
{
  return DirStream(::opendir(path));
}

} // namespace bgtask
