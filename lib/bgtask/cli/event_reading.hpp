#pragma once

#include <bgtask/exec/event_follow.hpp>
#include <bgtask/store/event_log.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace bgtask {

class TaskDir;

// The reader that a `since` value asks for: a cursor of `bgtask events`
// (after it), `now` (the end), `-N` (the last N events), or nullopt (the
// oldest event kept). `source` names where the value came from, for the
// message of the Error(usage) a malformed one throws.
EventLogReader reader_since(const TaskDir& dir, const std::optional<std::string>& since,
                            std::string_view source);

// The line a reader prints for a gap: type stream.gap, the resume cursor
// as its own, missed_from and resume in data.
LoggedEvent gap_event(const EventGap& gap);

// The line that ends a read until idle: queue.drained (of the selection's
// queue, if it names one), numbered as the last event read (`position`).
LoggedEvent drained_event(const std::optional<EventCursor>& position,
                          const EventSelection& selection);

} // namespace bgtask
