#pragma once

#include <bgtask/core/task_record.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace bgtask {

class TaskDir;

// What a task wrote after a position of its output stream: one answer of
// `output --since` and of the MCP `output` tool.
struct OutputSlice
{
  TaskRecord record;         // the task's current record, read before the output
  std::uint64_t from = 0;    // the offset asked for
  std::uint64_t offset = 0;  // where `data` starts: `from` plus `dropped`
  std::uint64_t dropped = 0; // bytes retention dropped between `from` and `offset`
  std::string data;          // the bytes, at most the number asked for
  std::uint64_t next = 0;    // where the next read starts: `offset` plus data's size
  std::uint64_t total = 0;   // the stream's length when it was read
  bool complete = false;     // the task is final and everything has been read
  std::uint64_t missing = 0; // bytes the final record counts that the file lacks
};

// The default and the largest `max_bytes` of one slice.
inline constexpr std::size_t k_default_slice_bytes = 64 * 1024;
inline constexpr std::size_t k_max_slice_bytes = 16 * 1024 * 1024;

// Reads up to `max_bytes` of task `id`'s output from offset `from`. Unless
// the task is final and the slice reaches the end, it stops before bytes
// that more output could complete (unfinished_text_tail in agent_text.hpp).
// Throws Error(usage) if `from` lies past the end of the output, and
// Error(failure) if the task has no output file.
OutputSlice read_output_slice(const TaskDir& dir, const std::string& id, std::uint64_t from,
                              std::size_t max_bytes);

// Where a slice of the last `lines` lines of task `id`'s output starts: at
// most `max_bytes` before the output's end and never in the gap (0 lines:
// the end, for a reader of only what follows).
std::uint64_t output_tail_offset(const TaskDir& dir, const std::string& id, std::size_t lines,
                                 std::size_t max_bytes);

} // namespace bgtask
