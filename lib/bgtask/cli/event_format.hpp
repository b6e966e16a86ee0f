#pragma once

#include <bgtask/core/event_line.hpp>

#include <string>
#include <string_view>

namespace bgtask {

// How `bgtask events` prints each event.
enum class EventFormat { jsonl, text, cloudevents };

// The format named `name` (jsonl, text, cloudevents); throws Error(usage).
EventFormat parse_event_format(std::string_view name);

// One event as one line of `format`, without its newline. `source` is the
// task directory (cloudevents' `source`). Text is a single line: whatever
// a name holds, a newline or control character in it is escaped.
std::string format_event(const LoggedEvent& logged, EventFormat format, std::string_view source);

} // namespace bgtask
