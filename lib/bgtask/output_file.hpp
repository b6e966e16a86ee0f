#pragma once

#include <bgtask/unique_fd.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace bgtask {

class TaskDir;

// Opens a task's `ID.output` for reading without following links or
// blocking on a FIFO. Returns an invalid fd if it does not exist; throws
// Error(failure) if it is not a regular file owned by this user.
UniqueFd open_output_file(const TaskDir& dir, std::string_view id);

// The last `lines` lines of the open file (reading backwards from its end,
// never the whole file); a final line without a newline counts as a line.
std::string read_last_lines(int fd, std::size_t lines);

enum class Escape { yes, no };

// Writes output to stdout chunk by chunk, escaping it for the terminal when
// `escape` is yes (without splitting a UTF-8 sequence across chunks).
class OutputCopier
{
public:
  explicit OutputCopier(Escape escape) : m_escape(escape) {}

  // Copies from `offset` to the current end of `fd`; returns the new offset.
  std::uint64_t copy_from(int fd, std::uint64_t offset);

  // Writes out any bytes held back.
  void finish();

private:
  void emit(std::string_view bytes);

  Escape m_escape;
  std::string m_pending;
};

} // namespace bgtask
