#include <bgtask/util/duration.hpp>
#include <bgtask/util/terminal_escape.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace bgtask {

namespace {

using Count = std::uint64_t;

constexpr Count k_second_ms = 1000;
constexpr Count k_minute_ms = 60 * k_second_ms;
constexpr Count k_hour_ms = 60 * k_minute_ms;
constexpr Count k_day_ms = 24 * k_hour_ms;

// 100 years of 365.25 days.
constexpr Count k_max_ms = 36525 * k_day_ms;

// Nine decimals resolve a millisecond even in days.
constexpr std::size_t k_max_fraction_digits = 9;

struct Unit
{
  std::string_view name;
  Count ms;
};

// In the order they must appear.
constexpr std::array<Unit, 5> k_units = {{
  {"d", k_day_ms},
  {"h", k_hour_ms},
  {"m", k_minute_ms},
  {"s", k_second_ms},
  {"ms", 1},
}};

struct Number
{
  Count whole = 0; // saturates just above k_max_ms
  Count fraction = 0;
  Count fraction_scale = 1;
};

Failure syntax_error(std::string_view text)
{
  return Failure{"invalid duration '" + escape_for_terminal(text, KeepNewlines::no) +
                 "': expected a number with a unit (ms, s, m, h, d), e.g. 30s or 1h30m"};
}

Failure too_large(std::string_view text)
{
  return Failure{"invalid duration '" + escape_for_terminal(text, KeepNewlines::no) +
                 "': must be at most 100 years"};
}

bool is_digit(char c)
{
  return c >= '0' && c <= '9';
}

Count digit_value(char c)
{
  return static_cast<Count>(c - '0');
}

// Reads `digits[.digits]` at `pos`.
std::optional<Number> read_number(std::string_view text, std::size_t& pos)
{
  Number number;
  const std::size_t start = pos;
  for (; pos < text.size() && is_digit(text[pos]); ++pos) {
    number.whole = std::min(number.whole * 10 + digit_value(text[pos]), k_max_ms + 1);
  }
  if (pos == start) {
    return std::nullopt;
  }
  if (pos == text.size() || text[pos] != '.') {
    return number;
  }
  const std::size_t fraction_start = ++pos;
  for (; pos < text.size() && is_digit(text[pos]); ++pos) {
    if (pos - fraction_start == k_max_fraction_digits) {
      return std::nullopt;
    }
    number.fraction = number.fraction * 10 + digit_value(text[pos]);
    number.fraction_scale *= 10;
  }
  if (pos == fraction_start) {
    return std::nullopt;
  }
  return number;
}

std::string_view read_unit(std::string_view text, std::size_t& pos)
{
  const std::size_t start = pos;
  while (pos < text.size() && text[pos] >= 'a' && text[pos] <= 'z') {
    ++pos;
  }
  return text.substr(start, pos - start);
}

// `number` units of `unit_ms` in whole milliseconds (rounded down), or
// nullopt if the whole part alone exceeds k_max_ms. The result is below
// k_max_ms + unit_ms, so it cannot overflow.
std::optional<Count> to_ms(const Number& number, Count unit_ms)
{
  if (number.whole > k_max_ms / unit_ms) {
    return std::nullopt;
  }
  return number.whole * unit_ms + number.fraction * unit_ms / number.fraction_scale;
}

std::string two_digits(Count value)
{
  return (value < 10 ? "0" : "") + std::to_string(value);
}

std::string format_magnitude(Count ms)
{
  if (ms < k_second_ms) {
    return std::to_string(ms) + "ms";
  }
  if (ms < k_minute_ms) {
    return std::to_string(ms / k_second_ms) + "." + std::to_string(ms % k_second_ms / 100) + "s";
  }
  if (ms < k_hour_ms) {
    return std::to_string(ms / k_minute_ms) + "m" + two_digits(ms % k_minute_ms / k_second_ms) +
           "s";
  }
  if (ms < k_day_ms) {
    return std::to_string(ms / k_hour_ms) + "h" + two_digits(ms % k_hour_ms / k_minute_ms) + "m";
  }
  return std::to_string(ms / k_day_ms) + "d" + std::to_string(ms % k_day_ms / k_hour_ms) + "h";
}

} // namespace

Result<Milliseconds> parse_duration(std::string_view text)
{
  std::size_t pos = 0;
  std::size_t next_unit = 0;
  Count total = 0;
  do {
    const std::optional<Number> number = read_number(text, pos);
    if (!number) {
      return syntax_error(text);
    }
    const std::string_view unit_name = read_unit(text, pos);
    Count unit_ms = 1000;
    if (unit_name.empty()) {
      if (next_unit != 0 || pos != text.size()) {
        return syntax_error(text);
      }
    } else {
      const auto unit =
        std::find_if(k_units.begin() + static_cast<std::ptrdiff_t>(next_unit), k_units.end(),
                     [&](const Unit& candidate) { return candidate.name == unit_name; });
      if (unit == k_units.end()) {
        return syntax_error(text);
      }
      next_unit = static_cast<std::size_t>(unit - k_units.begin()) + 1;
      unit_ms = unit->ms;
    }
    const std::optional<Count> ms = to_ms(*number, unit_ms);
    if (!ms || *ms > k_max_ms - total) {
      return too_large(text);
    }
    total += *ms;
  } while (pos < text.size());
  return Milliseconds(static_cast<Milliseconds::rep>(total));
}

std::string format_duration(Milliseconds duration)
{
  const auto count = duration.count();
  if (count < 0) {
    return "-" + format_magnitude(Count{0} - static_cast<Count>(count));
  }
  return format_magnitude(static_cast<Count>(count));
}

Milliseconds from_seconds(double seconds)
{
  constexpr double max_seconds = static_cast<double>(k_max_ms) / 1000.0;
  if (!(seconds > 0)) {
    return Milliseconds(0);
  }
  return Milliseconds(std::llround(std::min(seconds, max_seconds) * 1000.0));
}

} // namespace bgtask
