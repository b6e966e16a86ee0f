#pragma once

#include <bgtask/core/task_record.hpp>
#include <bgtask/util/unique_fd.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace bgtask {

class TaskDir;

// Opens a task's `ID.output` for reading without following links or
// blocking on a FIFO. Returns an invalid fd if it does not exist; throws
// Error(failure) if it is not a regular file owned by this user.
UniqueFd open_output_file(const TaskDir& dir, std::string_view id);

// The range of an output file that retention dropped: the one hole the
// supervisor punched between the kept head and tail (output_trimmer.hpp).
// Offsets are those of the output stream.
struct OutputGap
{
  std::uint64_t start = 0;
  std::uint64_t end = 0;
};

// The open file's gap, found with SEEK_HOLE/SEEK_DATA (two lseeks); nullopt
// if nothing was dropped from it or the file system cannot tell.
std::optional<OutputGap> find_output_gap(int fd);

// Bytes read from the output stream.
struct OutputChunk
{
  std::uint64_t offset = 0;  // where `data` starts: the offset asked for, past any gap
  std::uint64_t skipped = 0; // bytes of the gap between the offset asked for and `offset`
  std::string data;          // at most the bytes asked for; empty at the end of the file
};

// Reads up to `max_bytes` from `offset` (pread: costs what it returns),
// stepping over the gap, never returning the zeros of a range that the
// supervisor punched while it was read.
OutputChunk read_output_chunk(int fd, std::uint64_t offset, std::size_t max_bytes);

// The line `output` prints where the gap was: it says how many bytes were dropped.
std::string dropped_output_marker(std::uint64_t bytes);

// The offset at which the last `lines` lines of the open file start,
// searching backwards from its end through at most `max_bytes` (the offset
// is then `max_bytes` before the end), and not into the gap; a final line without a newline counts
// as a line. Reads in fixed-size blocks: constant memory, linear time.
std::uint64_t find_tail_start(int fd, std::size_t lines, std::uint64_t max_bytes = UINT64_MAX);

// The most read_last_lines returns: a tail of very long lines (or one line
// without end) is cut to its last k_max_tail_bytes.
inline constexpr std::uint64_t k_max_tail_bytes = 1024 * 1024;

// The last `lines` lines of the open file, at most k_max_tail_bytes of them.
std::string read_last_lines(int fd, std::size_t lines);

// How many of the bytes a final record counts in its output are not in the
// open output file `fd` (shorter than the record says: data lost in a power
// cut or cut off by hand; `fd` -1: the file is gone, all are missing); 0 when
// the output is whole or the task runs.
std::uint64_t missing_output_bytes(int fd, const TaskRecord& record);

// Where the bytes a follower of the task's output may copy end: for a task
// whose output is cut back to its head (OutputRetention::head_only) while
// its supervisor runs, the end of the head (what lies past it is cut away
// and written anew); else UINT64_MAX.
std::uint64_t followed_output_end(const TaskRecord& record);

// The warning `status` and `output` print when missing_output_bytes is not
// 0: "output of task ID is shorter than its record says (N of M bytes)".
std::string missing_output_warning(const TaskRecord& record, std::uint64_t missing);

// How output reaches stdout: escaped (escape_for_terminal), rendered as
// `less -R` does (render_for_terminal: colours and `\r` pass), or as is.
enum class Escape { yes, render, no };

// Writes output to stdout chunk by chunk, escaping it for the terminal when
// `escape` is yes (without splitting a UTF-8 sequence across chunks), with
// dropped_output_marker on a line of its own where the gap is. Where SIGPIPE
// is ignored, a write that finds stdout's reader gone (EPIPE) makes
// reader_gone() true and every later write a no-op.
class OutputCopier
{
public:
  explicit OutputCopier(Escape escape)
    : m_escape(escape)
  {
  }

  // Copies from `offset` to the current end of `fd`, or to `end` if that
  // comes first; returns the new offset.
  std::uint64_t copy_from(int fd, std::uint64_t offset, std::uint64_t end = UINT64_MAX);

  // Writes `bytes` read after a gap of `dropped` bytes (0: none).
  void write(std::uint64_t dropped, std::string_view bytes);

  // Writes out any bytes held back.
  void finish();

  // True once a write found that stdout's reader went away.
  bool reader_gone() const { return m_reader_gone; }

private:
  void emit(std::string_view bytes);
  void emit_marker(std::uint64_t dropped);
  void put(std::string_view bytes);

  Escape m_escape;
  std::string m_pending;
  char m_last = '\n';
  bool m_reader_gone = false;
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

  // Copies the complete lines from `offset` to the current end of `fd`, or
  // to `end` if that comes first; returns the new offset (a partial last
  // line is held back).
  std::uint64_t copy_from(int fd, std::uint64_t offset, std::uint64_t end = UINT64_MAX);

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
