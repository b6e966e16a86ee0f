#pragma once

#include <bgtask/util/unique_fd.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace bgtask {

class TaskDir;

// Opens a task's `ID.output` for reading without following links or
// blocking on a FIFO. Returns an invalid fd if it does not exist; throws
// Error(failure) if it is not a regular file owned by this user.
UniqueFd open_output_file(const TaskDir& dir, std::string_view id);

// The offset at which the last `lines` lines of the open file start,
// searching backwards from its end through at most `max_bytes` (the offset
// is then `max_bytes` before the end); a final line without a newline counts
// as a line. Reads in fixed-size blocks: constant memory, linear time.
std::uint64_t find_tail_start(int fd, std::size_t lines, std::uint64_t max_bytes = UINT64_MAX);

// The most read_last_lines returns: a tail of very long lines (or one line
// without end) is cut to its last k_max_tail_bytes.
inline constexpr std::uint64_t k_max_tail_bytes = 1024 * 1024;

// The last `lines` lines of the open file, at most k_max_tail_bytes of them.
std::string read_last_lines(int fd, std::size_t lines);

enum class Escape { yes, no };

// Writes output to stdout chunk by chunk, escaping it for the terminal when
// `escape` is yes (without splitting a UTF-8 sequence across chunks).
class OutputCopier
{
public:
  explicit OutputCopier(Escape escape)
    : m_escape(escape)
  {
  }

  // Copies from `offset` to the current end of `fd`; returns the new offset.
  std::uint64_t copy_from(int fd, std::uint64_t offset);

  // Writes out any bytes held back.
  void finish();

private:
  void emit(std::string_view bytes);

  Escape m_escape;
  std::string m_pending;
};

// Copies output to stdout a whole line at a time, each line preceded by a
// prefix (`output --follow` of several tasks interleaves them so): a line
// is written with one write(2), escaped for the terminal when `escape` is
// yes. A line longer than k_max_prefixed_line is written in pieces of that
// size, each with the prefix.
class PrefixedLineCopier
{
public:
  PrefixedLineCopier(std::string prefix, Escape escape)
    : m_prefix(std::move(prefix)),
      m_escape(escape)
  {
  }

  // Copies the complete lines from `offset` to the current end of `fd`;
  // returns the new offset (a partial last line is held back).
  std::uint64_t copy_from(int fd, std::uint64_t offset);

  // Writes a held-back partial line, ending it with a newline.
  void finish();

private:
  void emit_lines();
  void emit_line(std::string_view line);

  std::string m_prefix;
  Escape m_escape;
  std::string m_pending;
};

inline constexpr std::size_t k_max_prefixed_line = 64 * 1024;

} // namespace bgtask
