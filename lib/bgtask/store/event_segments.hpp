#pragma once

#include <bgtask/util/unique_fd.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bgtask {

// One segment file of the event log (event_log.hpp).
struct EventSegment
{
  std::string name;
  std::string log_id;
  std::uint64_t first_seq = 0;
};

// The segment name for a log and its first event.
std::string event_segment_name(std::string_view log_id, std::uint64_t first_seq);

// The segments in the open folder `folder`, oldest first, of the log the
// newest one belongs to (a stray of another log is left out).
std::vector<EventSegment> list_event_segments(int folder);

// A line of a text: where it begins and where its newline is.
struct LineSpan
{
  std::size_t begin = 0;
  std::size_t end = 0; // the newline
};
// The complete lines of `text`: those up to its last newline.
std::vector<LineSpan> complete_lines(std::string_view text);

// The bytes of the open file from `offset` to its end (read_all); throws
// Error(failure) naming `what` if reading fails.
std::string read_from(int fd, std::uint64_t offset, const std::string& what);

} // namespace bgtask
