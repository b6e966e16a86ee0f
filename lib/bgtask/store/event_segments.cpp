#include <bgtask/store/event_segments.hpp>
#include <bgtask/util/dir_stream.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/fd_io.hpp>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <unistd.h>

namespace bgtask {

namespace {

constexpr std::string_view k_suffix = ".jsonl";
constexpr std::size_t k_seq_digits = 20;

std::optional<EventSegment> parse_segment_name(std::string_view name)
{
  if (!name.ends_with(k_suffix)) {
    return std::nullopt;
  }
  name.remove_suffix(k_suffix.size());
  const auto dash = name.find('-');
  if (dash == 0 || dash == std::string_view::npos || name.size() - dash - 1 != k_seq_digits) {
    return std::nullopt;
  }
  EventSegment segment;
  segment.log_id = std::string(name.substr(0, dash));
  if (!std::all_of(segment.log_id.begin(), segment.log_id.end(),
                   [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); })) {
    return std::nullopt;
  }
  const std::string_view digits = name.substr(dash + 1);
  const auto [end, ec] =
    std::from_chars(digits.data(), digits.data() + digits.size(), segment.first_seq);
  if (ec != std::errc() || end != digits.data() + digits.size() || segment.first_seq == 0) {
    return std::nullopt;
  }
  segment.name = std::string(name) + std::string(k_suffix);
  return segment;
}

} // namespace

std::string event_segment_name(std::string_view log_id, std::uint64_t first_seq)
{
  char digits[k_seq_digits + 1];
  std::snprintf(digits, sizeof digits, "%020llu", static_cast<unsigned long long>(first_seq));
  return std::string(log_id) + "-" + digits + std::string(k_suffix);
}

std::vector<EventSegment> list_event_segments(int folder)
{
  std::vector<EventSegment> segments;
  DirStream stream = DirStream::open_at(folder);
  if (!stream) {
    return segments;
  }
  while (const dirent* entry = stream.next()) {
    if (auto segment = parse_segment_name(entry->d_name)) {
      segments.push_back(std::move(*segment));
    }
  }
  std::sort(segments.begin(), segments.end(),
            [](const EventSegment& a, const EventSegment& b) { return a.first_seq < b.first_seq; });
  if (!segments.empty()) {
    const std::string newest = segments.back().log_id;
    std::erase_if(segments, [&](const EventSegment& s) { return s.log_id != newest; });
  }
  return segments;
}

std::vector<LineSpan> complete_lines(std::string_view text)
{
  std::vector<LineSpan> lines;
  std::size_t begin = 0;
  for (std::size_t newline = text.find('\n'); newline != std::string_view::npos;
       newline = text.find('\n', begin)) {
    lines.push_back({begin, newline});
    begin = newline + 1;
  }
  return lines;
}

std::string read_from(int fd, std::uint64_t offset, const std::string& what)
{
  std::string text;
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::pread(fd, buffer, sizeof buffer, static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      throw_system("cannot read " + what, errno);
    }
    if (n == 0) {
      return text;
    }
    text.append(buffer, static_cast<std::size_t>(n));
    offset += static_cast<std::uint64_t>(n);
  }
}

} // namespace bgtask
