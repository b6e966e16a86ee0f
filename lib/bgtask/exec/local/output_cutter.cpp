#include <bgtask/exec/local/output_cutter.hpp>

#include <cerrno>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

namespace bgtask {

OutputCutter::OutputCutter(int output, std::uint64_t limit)
  : m_output(output),
    m_limit(limit)
{
}

std::optional<Milliseconds> OutputCutter::next_look() const
{
  if (!m_error.empty()) {
    return std::nullopt; // bounding stopped
  }
  return m_pacer.pause();
}

void OutputCutter::drain()
{
  struct stat st
  {
  };
  if (!m_error.empty() || ::fstat(m_output, &st) != 0) {
    return;
  }
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size <= m_limit) {
    m_pacer.saw(size);
    return;
  }
  if (::ftruncate(m_output, static_cast<off_t>(m_limit)) != 0) {
    m_error = std::string("cannot cut the output back to its head: ") + std::strerror(errno);
    return;
  }
  m_dropped += size - m_limit;
  m_pacer.saw(size); // it grew: look again soon
}

} // namespace bgtask
