#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace bgtask {

using TimePoint = std::chrono::time_point<std::chrono::system_clock, std::chrono::milliseconds>;

// The current wall-clock time, truncated to milliseconds. It may jump (an
// NTP step, `date -s`): order and durations never depend on it alone (see
// monotonic_clock.hpp and make_task_id's caller). In a build with test
// seams, BGTASK_TEST_CLOCK_OFFSET_FILE shifts it.
TimePoint now();

// RFC 3339 UTC with milliseconds: `2026-11-29T18:12:03.123Z`.
std::string format_timestamp(TimePoint time);

// Parses what format_timestamp writes; nullopt for anything else.
std::optional<TimePoint> parse_timestamp(std::string_view text);

// Local time for tables: `2026-11-29 18:12:03` (in UTC when TZ is unset).
std::string format_local_time(TimePoint time);

// The local time as `list` shows it: `18:12:03` when it falls on the same
// local day as `today`, else as format_local_time.
std::string format_list_time(TimePoint time, TimePoint today);

// The same, short, for a narrow terminal: `18:12` on the same local day as
// `today`, else the local date as `12-05`.
std::string format_short_list_time(TimePoint time, TimePoint today);

// The same local time with its offset from UTC, for `status`:
// `2026-11-29 19:12:03 +01:00`.
std::string format_local_time_with_offset(TimePoint time);

} // namespace bgtask
