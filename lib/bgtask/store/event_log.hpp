#pragma once

#include <bgtask/core/event_line.hpp>
#include <bgtask/core/stream_event.hpp>
#include <bgtask/util/duration.hpp>
#include <bgtask/util/timestamp.hpp>
#include <bgtask/util/unique_fd.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace bgtask {

class TaskDir;

// The event log of a task directory: `events/` holds segments named
// `LOGID-FIRSTSEQ.jsonl` (FIRSTSEQ in 20 digits), one JSON line per event
// (event_line.hpp), appended under `events.lock` (a lock of the task
// directory, taken with the usual patience). Readers take no lock: they
// read up to the last newline, so a torn last line is never read, and the
// next writer cuts it off.
inline constexpr const char* k_event_folder = "events";
inline constexpr const char* k_event_lock_file = "events.lock";

// A segment grows to this size, then the next one begins.
inline constexpr std::uint64_t k_event_segment_bytes = 4 * 1024 * 1024;
// The least time `cleanup` keeps a segment after its last change (longer
// when its --older-than is longer).
inline constexpr Milliseconds k_event_retention{7LL * 24 * 3600 * 1000};
// The most segments kept: a writer that begins one removes the oldest beyond.
inline constexpr std::size_t k_max_event_segments = 16;

enum class EventSync {
  final_only, // fdatasync when an event is final (is_final_event); else on a later sync
  always,     // fdatasync whatever the events
};

// Appends `events` in one write, numbered after the last event of the log
// (a new log, with a new identity, if there is none). Returns the cursor
// of the last one. Throws Error(failure) (lock, folder, write or sync).
EventCursor append_events(const TaskDir& dir, const std::vector<StreamEvent>& events,
                          EventSync sync = EventSync::final_only);

// Removes, under the log's lock, the segments but the newest whose last
// change is older than `cutoff` (`cleanup` keeps events as long as tasks).
// Returns how many it removed. Errors are ignored.
std::size_t trim_event_log(const TaskDir& dir, TimePoint cutoff);

// Why a reader cannot go on where it stood.
struct EventGap
{
  EventCursor missed_from; // the first event asked for that is not kept
  EventCursor resume;      // where a reader goes on: before the oldest event kept
};

// What one read of the log gave.
struct EventRead
{
  std::vector<LoggedEvent> events;
  std::optional<EventGap> gap; // set: `events` is empty and the reader was moved to `resume`
};

// Reads a log as it grows, from a place on: each read returns the events
// appended since the one before (none twice, none skipped), or a gap.
class EventLogReader
{
public:
  // Where the first read begins (the end of a log that has no event yet
  // is its start: what is appended later is read).
  enum class From { start, end };
  EventLogReader(const TaskDir& dir, From from);
  // After `cursor` (a cursor of another log, or of an event no longer kept, gives a gap).
  EventLogReader(const TaskDir& dir, EventCursor cursor);
  // The last `count` events of the log, then what follows them.
  static EventLogReader last(const TaskDir& dir, std::uint64_t count);

  EventRead read();

  // The cursor of the last event returned (or where the reader began);
  // nullopt while the log was empty and the reader began at its start.
  std::optional<EventCursor> position() const;

  // The folder (an invalid fd while there is none), for a watch on it.
  int folder_fd();

private:
  explicit EventLogReader(const TaskDir& dir);
  void read_segment(const std::string& name, EventRead& out);

  const TaskDir& m_dir;
  UniqueFd m_folder;
  std::string m_log_id;       // empty: not known yet
  std::uint64_t m_next = 1;   // the next seq to return
  bool m_at_end = false;      // begin at the log's end on the first read
  std::uint64_t m_back = 0;   // ... that many events before it
  std::string m_segment;      // the segment read last
  std::uint64_t m_offset = 0; // where its unread part starts
};

// The IDs of tasks with a task.exited event in the kept log, the time of
// its oldest event and the cursor of its last (nullopt: the log is empty).
struct FinalEventIndex
{
  std::vector<std::string> ids; // sorted
  std::optional<TimePoint> oldest;
  std::optional<EventCursor> end;
};
FinalEventIndex index_final_events(const TaskDir& dir);

} // namespace bgtask
