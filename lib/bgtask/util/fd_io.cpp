#include <bgtask/util/fd_io.hpp>
#include <bgtask/util/unique_fd.hpp>

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <unistd.h>

namespace bgtask {

int write_all(int fd, const void* data, std::size_t size) noexcept
{
  const char* at = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd, at, size);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return n < 0 ? errno : EIO;
    }
    at += n;
    size -= static_cast<std::size_t>(n);
  }
  return 0;
}

int pwrite_all(int fd, std::string_view data, off_t offset) noexcept
{
  while (!data.empty()) {
    const ssize_t n = ::pwrite(fd, data.data(), data.size(), offset);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return n < 0 ? errno : EIO;
    }
    data.remove_prefix(static_cast<std::size_t>(n));
    offset += n;
  }
  return 0;
}

int read_all(int fd, std::string& text, std::size_t limit)
{
  constexpr std::size_t k_chunk = 64 * 1024;
  while (limit > 0) {
    // Straight into `text`: a file whose size is known is read in one call.
    const std::size_t had = text.size();
    const std::size_t want = std::min(limit, k_chunk);
    text.resize(had + want);
    const ssize_t n = ::read(fd, text.data() + had, want);
    const int err = n < 0 ? errno : 0;
    text.resize(had + (n > 0 ? static_cast<std::size_t>(n) : 0));
    if (err == EINTR) {
      continue;
    }
    if (n <= 0) {
      return err;
    }
    limit -= static_cast<std::size_t>(n);
  }
  return 0;
}

std::string read_small_file(const char* path, std::size_t max)
{
  const UniqueFd fd(::open(path, O_RDONLY | O_CLOEXEC));
  if (!fd) {
    return {};
  }
  // To end of file: one read(2) of a pseudo-file or a pipe may return part.
  std::string text;
  if (read_all(fd.get(), text, max) != 0) {
    return {};
  }
  return text;
}

int sync_fd(int fd, SyncWhat what) noexcept
{
  while ((what == SyncWhat::data ? ::fdatasync(fd) : ::fsync(fd)) != 0) {
    if (errno != EINTR) {
      return errno;
    }
  }
  return 0;
}

} // namespace bgtask
