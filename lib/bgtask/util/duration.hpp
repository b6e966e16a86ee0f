#pragma once

#include <bgtask/util/result.hpp>

#include <chrono>
#include <string>
#include <string_view>

namespace bgtask {

using Milliseconds = std::chrono::milliseconds;

// Parses a duration: a sequence of <number><unit> with units ms, s, m, h, d
// (`500ms`, `30s`, `1h30m`, `1.5s`), or a bare non-negative number meaning
// seconds (`10`, `0.25`). A failure naming `text` for anything else: empty
// input, a sign, exponents, unknown units, repeated or misordered units, or a
// value above 100 years.
Result<Milliseconds> parse_duration(std::string_view text);

// Formats a duration compactly for people: `850ms`, `12.3s`, `4m05s`, `2h10m`, `3d4h`.
std::string format_duration(Milliseconds duration);

// Seconds as a floating number, as stored in records (`timeout_s`, `duration_s`).
constexpr double to_seconds(Milliseconds duration)
{
  return static_cast<double>(duration.count()) / 1000.0;
}

// Seconds as records and the MCP tools give them (`grace_s`, `timeout_s`,
// `delay_s`) back as a duration, rounded to the nearest millisecond. A value
// read from a file is not trusted: a negative one or NaN gives 0, one above
// the longest duration parse_duration takes (100 years) that longest.
Milliseconds from_seconds(double seconds);

} // namespace bgtask
