#include <bgtask/store/cache_folder.hpp>
#include <bgtask/store/dir_lock.hpp>
#include <bgtask/store/event_log.hpp>
#include <bgtask/store/event_segments.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/fd_io.hpp>
#include <bgtask/util/random_token.hpp>

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace bgtask {

namespace {

// The segment being appended to, and the last event in the log.
struct LogTail
{
  UniqueFd fd;
  std::string log_id;
  std::uint64_t last_seq = 0;
  bool new_segment = false; // made now: the folder must be synced
};

UniqueFd open_folder(const TaskDir& dir, CreateFolder create)
{
  UniqueFd folder = open_private_folder(dir, k_event_folder, create);
  if (!folder && create == CreateFolder::yes) {
    throw Error(ExitCode::failure, "cannot open " + dir.file_path(k_event_folder) +
                                     ": missing, not a directory or not the owner's alone");
  }
  return folder;
}

UniqueFd create_segment(const TaskDir& dir, int folder, const std::string& name)
{
  UniqueFd fd = open_at(folder, name.c_str(),
                        O_RDWR | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (!fd) {
    throw_system("cannot create " + dir.file_path(k_event_folder) + "/" + name, errno);
  }
  return fd;
}

// The seq of the last complete line that parses, after cutting off a torn
// line at the end of the file; `first_seq` - 1 if there is none.
std::uint64_t last_seq_of(int fd, std::uint64_t size, std::uint64_t first_seq,
                          const std::string& what)
{
  std::uint64_t from = size > 65536 ? size - 65536 : 0;
  std::string text = read_from(fd, from, what);
  if (from > 0 && text.find('\n') == std::string::npos) {
    from = 0;
    text = read_from(fd, 0, what);
  }
  const auto newline = text.rfind('\n');
  const std::uint64_t whole = newline == std::string::npos ? from : from + newline + 1;
  if (whole < from + text.size() && ::ftruncate(fd, static_cast<off_t>(whole)) != 0) {
    throw_system("cannot cut the torn last line of " + what, errno);
  }
  auto lines = complete_lines(text);
  for (auto line = lines.rbegin(); line != lines.rend(); ++line) {
    if (line->begin == 0 && from > 0) {
      break; // may be the end of a line that began before the window
    }
    const auto decoded =
      decode_event_line(std::string_view(text).substr(line->begin, line->end - line->begin));
    if (decoded) {
      return decoded.value().seq;
    }
  }
  return first_seq - 1;
}

void drop_oldest_segments(int folder, const std::vector<EventSegment>& segments)
{
  // `segments` does not count the one just made.
  if (segments.size() + 1 <= k_max_event_segments) {
    return;
  }
  const std::size_t surplus = segments.size() + 1 - k_max_event_segments;
  for (std::size_t i = 0; i < surplus; ++i) {
    ::unlinkat(folder, segments[i].name.c_str(), 0);
  }
}

LogTail open_tail(const TaskDir& dir, int folder)
{
  LogTail tail;
  const auto segments = list_event_segments(folder);
  if (segments.empty()) {
    tail.log_id = random_token().substr(0, 16);
    tail.fd = create_segment(dir, folder, event_segment_name(tail.log_id, 1));
    tail.new_segment = true;
    return tail;
  }
  const EventSegment& newest = segments.back();
  const std::string what = dir.file_path(k_event_folder) + "/" + newest.name;
  tail.log_id = newest.log_id;
  tail.fd = open_at(folder, newest.name.c_str(), O_RDWR | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
  struct stat st
  {
  };
  if (!tail.fd || ::fstat(tail.fd.get(), &st) != 0) {
    throw_system("cannot open " + what, errno);
  }
  if (!S_ISREG(st.st_mode) || st.st_uid != dir.owner()) {
    throw Error(ExitCode::failure, what + " is not a regular file of the directory's owner");
  }
  const auto size = static_cast<std::uint64_t>(st.st_size);
  tail.last_seq = last_seq_of(tail.fd.get(), size, newest.first_seq, what);
  if (size >= k_event_segment_bytes) {
    tail.fd = create_segment(dir, folder, event_segment_name(tail.log_id, tail.last_seq + 1));
    tail.new_segment = true;
    drop_oldest_segments(folder, segments);
  }
  return tail;
}

bool needs_sync(const std::vector<StreamEvent>& events, EventSync sync)
{
  return sync == EventSync::always ||
         std::any_of(events.begin(), events.end(),
                     [](const StreamEvent& event) { return is_final_event(event.type); });
}

} // namespace

EventCursor append_events(const TaskDir& dir, const std::vector<StreamEvent>& events,
                          EventSync sync)
{
  const UniqueFd folder = open_folder(dir, CreateFolder::yes);
  const DirLock lock = DirLock::acquire(dir, k_event_lock_file);
  LogTail tail = open_tail(dir, folder.get());
  std::string text;
  LoggedEvent logged;
  logged.log_id = tail.log_id;
  logged.seq = tail.last_seq;
  for (const StreamEvent& event : events) {
    ++logged.seq;
    logged.event = event;
    text += encode_event_line(logged);
  }
  const std::string what = dir.file_path(k_event_folder);
  if (const int err = write_all(tail.fd.get(), text); err != 0) {
    throw_system("cannot append to the event log in " + what, err);
  }
  if (needs_sync(events, sync) || tail.new_segment) {
    if (const int err = sync_fd(tail.fd.get(), SyncWhat::data); err != 0) {
      throw_system("cannot sync the event log in " + what, err);
    }
  }
  if (tail.new_segment) {
    if (const int err = sync_fd(folder.get(), SyncWhat::all); err != 0) {
      throw_system("cannot sync " + what, err);
    }
  }
  return {tail.log_id, logged.seq};
}

std::size_t trim_event_log(const TaskDir& dir, TimePoint cutoff)
{
  const UniqueFd folder = open_folder(dir, CreateFolder::no);
  if (!folder) {
    return 0;
  }
  const DirLock lock = DirLock::acquire(dir, k_event_lock_file);
  const auto segments = list_event_segments(folder.get());
  std::size_t removed = 0;
  for (std::size_t i = 0; i + 1 < segments.size(); ++i) {
    struct stat st
    {
    };
    if (::fstatat(folder.get(), segments[i].name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      continue;
    }
    const auto changed = std::chrono::time_point_cast<std::chrono::milliseconds>(
      std::chrono::system_clock::from_time_t(st.st_mtim.tv_sec));
    if (changed >= cutoff) {
      break; // the segments after it changed later still
    }
    if (::unlinkat(folder.get(), segments[i].name.c_str(), 0) == 0) {
      ++removed;
    }
  }
  return removed;
}

} // namespace bgtask
