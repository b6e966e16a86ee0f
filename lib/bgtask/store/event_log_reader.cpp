#include <bgtask/store/cache_folder.hpp>
#include <bgtask/store/event_log.hpp>
#include <bgtask/store/event_segments.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/fd_io.hpp>

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <limits>

namespace bgtask {

namespace {

// Whether the lines read are made durable before they are used.
enum class SyncRead { no, yes };

// Calls `use` with each event of the segment from `offset` on; returns
// the offset after its last complete line. With SyncRead::yes, lines read
// are first made durable (fdatasync): a line a reader was handed, and
// whose cursor it may keep, never vanishes in a power cut, so its
// sequence number is never given to another event after the reboot
// (other writers' events but the final ones ride on a later sync).
template <typename Use>
std::uint64_t for_each_event(const TaskDir& dir, int folder, const std::string& name,
                             std::uint64_t offset, Use use, SyncRead sync = SyncRead::no)
{
  const UniqueFd fd = open_at(folder, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (!fd) {
    return offset; // removed meanwhile: the next listing tells
  }
  const std::string path = dir.file_path(k_event_folder) + "/" + name;
  const std::string text = read_from(fd.get(), offset, path);
  if (sync == SyncRead::yes && text.find('\n') != std::string::npos) {
    // EROFS, EINVAL: a file system that cannot sync (nothing writes there).
    if (const int err = sync_fd(fd.get(), SyncWhat::data);
        err != 0 && err != EROFS && err != EINVAL) {
      throw_system("cannot sync the event log " + path, err);
    }
  }
  std::uint64_t end = offset;
  for (const LineSpan& line : complete_lines(text)) {
    auto decoded =
      decode_event_line(std::string_view(text).substr(line.begin, line.end - line.begin));
    if (decoded) {
      use(std::move(decoded).value());
    }
    end = offset + line.end + 1;
  }
  return end;
}

std::uint64_t last_seq(const TaskDir& dir, int folder, const EventSegment& segment)
{
  std::uint64_t seq = segment.first_seq - 1;
  for_each_event(dir, folder, segment.name, 0, [&](const LoggedEvent& e) { seq = e.seq; });
  return seq;
}

} // namespace

EventLogReader::EventLogReader(const TaskDir& dir)
  : m_dir(dir)
{
}

EventLogReader::EventLogReader(const TaskDir& dir, From from)
  : m_dir(dir),
    m_at_end(from == From::end)
{
}

EventLogReader::EventLogReader(const TaskDir& dir, EventCursor cursor)
  : m_dir(dir),
    m_log_id(std::move(cursor.log_id)),
    m_next(cursor.seq + 1)
{
}

EventLogReader EventLogReader::last(const TaskDir& dir, std::uint64_t count)
{
  EventLogReader reader(dir);
  reader.m_at_end = true;
  reader.m_back = count;
  return reader;
}

int EventLogReader::folder_fd()
{
  if (!m_folder) {
    m_folder = open_private_folder(m_dir, k_event_folder, CreateFolder::no);
  }
  return m_folder.get();
}

std::optional<EventCursor> EventLogReader::position() const
{
  if (m_log_id.empty()) {
    return std::nullopt;
  }
  return EventCursor{m_log_id, m_next - 1};
}

EventRead EventLogReader::read()
{
  EventRead out;
  const auto segments =
    folder_fd() < 0 ? std::vector<EventSegment>{} : list_event_segments(m_folder.get());
  if (segments.empty()) {
    if (m_log_id.empty()) {
      m_at_end = false; // the end of a log not begun yet is its start
    }
    return out;
  }
  const std::uint64_t oldest = segments.front().first_seq;
  if (m_log_id.empty()) {
    m_log_id = segments.front().log_id;
    m_next = oldest;
    if (m_at_end) {
      const std::uint64_t last = last_seq(m_dir, m_folder.get(), segments.back());
      m_next = std::max(oldest, last + 1 - std::min(m_back, last));
    }
  } else if (m_log_id != segments.front().log_id || m_next < oldest) {
    out.gap = EventGap{{m_log_id, m_next}, {segments.front().log_id, oldest - 1}};
    m_log_id = segments.front().log_id;
    m_next = oldest;
    m_segment.clear();
    return out;
  }
  for (std::size_t i = 0; i < segments.size(); ++i) {
    const std::uint64_t past = i + 1 < segments.size() ? segments[i + 1].first_seq
                                                       : std::numeric_limits<std::uint64_t>::max();
    if (past > m_next) {
      read_segment(segments[i].name, out);
    }
  }
  return out;
}

void EventLogReader::read_segment(const std::string& name, EventRead& out)
{
  const std::uint64_t from = name == m_segment ? m_offset : 0;
  m_offset = for_each_event(
    m_dir, m_folder.get(), name, from,
    [&](LoggedEvent&& event) {
      if (event.seq >= m_next) {
        m_next = event.seq + 1;
        event.log_id = m_log_id;
        out.events.push_back(std::move(event));
      }
    },
    SyncRead::yes);
  m_segment = name;
}

FinalEventIndex index_final_events(const TaskDir& dir)
{
  FinalEventIndex index;
  const UniqueFd folder = open_private_folder(dir, k_event_folder, CreateFolder::no);
  if (!folder) {
    return index;
  }
  for (const EventSegment& segment : list_event_segments(folder.get())) {
    for_each_event(dir, folder.get(), segment.name, 0, [&](const LoggedEvent& e) {
      if (!index.oldest) {
        index.oldest = e.event.time;
      }
      index.end = EventCursor{segment.log_id, e.seq};
      if (e.event.type == "task.exited") {
        index.ids.push_back(e.event.task);
      }
    });
  }
  std::sort(index.ids.begin(), index.ids.end());
  return index;
}

} // namespace bgtask
