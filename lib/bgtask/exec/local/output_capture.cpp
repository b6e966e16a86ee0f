#include <bgtask/exec/local/output_capture.hpp>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace bgtask {

namespace {

constexpr std::size_t k_buffer_bytes = 64 * 1024;

} // namespace

OutputCapture::OutputCapture(UniqueFd pipe, int output, std::uint64_t limit)
  : m_output(output),
    m_room(limit)
{
  read_from(std::move(pipe));
}

void OutputCapture::read_from(UniqueFd pipe)
{
  drain();
  m_pipe = std::move(pipe);
  const int flags = ::fcntl(m_pipe.get(), F_GETFL);
  if (flags >= 0) {
    ::fcntl(m_pipe.get(), F_SETFL, flags | O_NONBLOCK);
  }
}

void OutputCapture::drain()
{
  std::array<char, k_buffer_bytes> buffer{};
  while (m_pipe) {
    const ssize_t n = ::read(m_pipe.get(), buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0 && errno == EAGAIN) {
      return;
    }
    if (n <= 0) {
      m_pipe.close();
      return;
    }
    store(buffer.data(), static_cast<std::size_t>(n));
  }
}

void OutputCapture::store(const char* data, std::size_t size)
{
  const std::size_t kept = static_cast<std::size_t>(std::min<std::uint64_t>(size, m_room));
  std::size_t written = 0;
  while (written < kept) {
    const ssize_t n = ::write(m_output, data + written, kept - written);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      m_write_error = std::strerror(n < 0 ? errno : EIO);
      m_room = 0;
      break;
    }
    written += static_cast<std::size_t>(n);
  }
  m_room -= std::min<std::uint64_t>(m_room, written);
  m_kept += written;
  m_dropped += size - written;
}

} // namespace bgtask
