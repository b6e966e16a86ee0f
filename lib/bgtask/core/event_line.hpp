#pragma once

#include <bgtask/core/stream_event.hpp>
#include <bgtask/util/result.hpp>

#include <boost/json/object.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace bgtask {

// A place in one event log: the log's identity (a random token made when
// the log was, so that a log deleted and made again is told apart) and a
// sequence number (the event at or after which a reader stands).
struct EventCursor
{
  std::string log_id;
  std::uint64_t seq = 0;
};

// The opaque text of a cursor (`e1.LOGID.SEQ`), as readers are handed it.
std::string encode_event_cursor(const EventCursor& cursor);

// The cursor `text` stands for; nullopt if it is malformed.
std::optional<EventCursor> decode_event_cursor(std::string_view text);

// An event as the log keeps it: numbered within the log `log_id`.
struct LoggedEvent
{
  std::uint64_t seq = 0;
  std::string log_id;
  StreamEvent event;
};

// The JSON object of a logged event: seq, cursor, type, time, task, name,
// queue, data (the line `bgtask events` prints and the log stores).
boost::json::object logged_event_to_json(const LoggedEvent& logged);

// One line of the log: logged_event_to_json, compact, with its newline.
std::string encode_event_line(const LoggedEvent& logged);

// Parses one line (without its newline); a failure says why.
Result<LoggedEvent> decode_event_line(std::string_view line);

} // namespace bgtask
