#include <bgtask/cli/event_reading.hpp>
#include <bgtask/util/decimal_count.hpp>
#include <bgtask/util/error.hpp>

namespace bgtask {

EventLogReader reader_since(const TaskDir& dir, const std::optional<std::string>& since,
                            std::string_view source)
{
  if (!since) {
    return EventLogReader(dir, EventLogReader::From::start);
  }
  if (*since == "now") {
    return EventLogReader(dir, EventLogReader::From::end);
  }
  if (since->starts_with('-')) {
    const std::size_t count = value_or_usage(parse_count(since->substr(1), source));
    return EventLogReader::last(dir, count);
  }
  const auto cursor = decode_event_cursor(*since);
  if (!cursor) {
    throw_usage(std::string(source) + ": expected a cursor of `bgtask events`, `now` or -N, not '" +
                since->substr(0, 80) + "'");
  }
  return EventLogReader(dir, *cursor);
}

LoggedEvent gap_event(const EventGap& gap)
{
  LoggedEvent line;
  line.log_id = gap.resume.log_id;
  line.seq = gap.resume.seq;
  line.event.type = "stream.gap";
  line.event.time = now();
  line.event.data["missed_from"] = encode_event_cursor(gap.missed_from);
  line.event.data["resume"] = encode_event_cursor(gap.resume);
  return line;
}

LoggedEvent drained_event(const std::optional<EventCursor>& position,
                          const EventSelection& selection)
{
  LoggedEvent drained;
  drained.log_id = position ? position->log_id : std::string("0");
  drained.seq = position ? position->seq : 0;
  drained.event.type = "queue.drained";
  drained.event.queue = selection.queue;
  drained.event.time = now();
  drained.event.data["queue"] =
    selection.queue ? boost::json::value(*selection.queue) : boost::json::value(nullptr);
  return drained;
}

} // namespace bgtask
