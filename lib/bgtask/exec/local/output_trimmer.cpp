#include <bgtask/exec/local/output_trimmer.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <sys/stat.h>

namespace bgtask {

namespace {

constexpr int k_punch = FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE;

std::uint64_t align_up(std::uint64_t value, std::uint64_t block)
{
  return (value + block - 1) / block * block;
}

} // namespace

std::optional<OutputTrimmer> OutputTrimmer::create(int output, std::uint64_t limit)
{
  struct stat st
  {
  };
  if (::fstat(output, &st) != 0) {
    return std::nullopt;
  }
  const std::uint64_t block = st.st_blksize > 0 ? static_cast<std::uint64_t>(st.st_blksize) : 4096;
  // Punching a range past the end changes nothing, and tells whether the
  // file system can punch at all.
  const auto probe = static_cast<off_t>(align_up(static_cast<std::uint64_t>(st.st_size), block));
  if (::fallocate(output, k_punch, probe, static_cast<off_t>(block)) != 0) {
    return std::nullopt;
  }
  const std::uint64_t head = limit / 2;
  return OutputTrimmer(output, head, limit - head, block);
}

OutputTrimmer::OutputTrimmer(int output, std::uint64_t head, std::uint64_t tail,
                             std::uint64_t block)
  : m_output(output),
    m_tail(tail),
    m_block(block),
    m_step(std::clamp(tail / 4 / block * block, block, std::max(block, k_trim_step))),
    m_hole_start(align_up(head, block)),
    m_hole_end(m_hole_start)
{
}

std::uint64_t OutputTrimmer::dropped_at() const
{
  return m_hole_end > m_hole_start ? m_hole_start : UINT64_MAX;
}

std::optional<Milliseconds> OutputTrimmer::next_look() const
{
  if (!m_error.empty()) {
    return std::nullopt; // bounding stopped
  }
  return m_pacer.pause();
}

void OutputTrimmer::drain()
{
  struct stat st
  {
  };
  if (!m_error.empty() || ::fstat(m_output, &st) != 0) {
    return;
  }
  const auto size = static_cast<std::uint64_t>(st.st_size);
  m_pacer.saw(size);
  trim(size);
}

void OutputTrimmer::trim(std::uint64_t size)
{
  if (size <= m_tail) {
    return;
  }
  const std::uint64_t end = (size - m_tail) / m_block * m_block;
  if (end < m_hole_end + m_step) {
    return;
  }
  if (::fallocate(m_output, k_punch, static_cast<off_t>(m_hole_end),
                  static_cast<off_t>(end - m_hole_end)) != 0) {
    m_error = std::string("cannot trim the output: ") + std::strerror(errno);
    return;
  }
  m_hole_end = end;
}

} // namespace bgtask
