#pragma once

#include <bgtask/core/task_record.hpp>
#include <bgtask/util/line_pattern.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace bgtask {

class TaskDir;

// One line of a task's output, as a search reports it.
struct GrepLine
{
  std::uint64_t number = 0; // 1-based; after the gap, counted in the kept output only
  bool after_gap = false;   // the line lies after the bytes retention dropped
  std::uint64_t offset = 0; // where the line starts in the output stream
  std::string text;         // the line without its newline, cut at k_grep_line_bytes
};

// A matching line with the lines around it.
struct GrepMatch
{
  GrepLine line;
  std::vector<GrepLine> before;
  std::vector<GrepLine> after;
};

// What to find and how much of it to return.
struct GrepRequest
{
  const LinePattern* pattern = nullptr; // searched in each line
  std::size_t context = 0;              // lines shown before and after each match
  std::size_t max_matches = SIZE_MAX;   // matches returned; later ones are only counted
  std::size_t max_bytes = SIZE_MAX;     // text returned, lines and context together
};

struct GrepResult
{
  TaskRecord record;               // read before the output
  std::vector<GrepMatch> matches;  // the first matches, within the bounds
  std::uint64_t total_matches = 0; // every matching line of the kept output
  std::uint64_t scanned_bytes = 0; // the kept output read
  std::uint64_t dropped_bytes = 0; // the gap retention left, which no search sees
  std::uint64_t end = 0;           // where the search stopped: the output's length
  bool truncated = false;          // matches were left out by the bounds
};

// The most of a line a search returns (its first bytes). It matches each
// line's first LinePattern::window_bytes() (4 KiB or more).
inline constexpr std::size_t k_grep_line_bytes = 512;

// Searches task `id`'s kept output, head and tail across the retention gap,
// in one pass of fixed-size reads. Throws Error(failure) if the task has no
// output file.
GrepResult grep_output(const TaskDir& dir, const std::string& id, const GrepRequest& request);

} // namespace bgtask
