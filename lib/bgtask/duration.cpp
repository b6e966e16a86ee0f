#include <bgtask/duration.hpp>
#include <bgtask/error.hpp>
#include <bgtask/terminal_escape.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace bgtask {

namespace {

using Count = std::uint64_t;

// 100 years of 365.25 days.
constexpr Count k_max_ms = Count{36525} * 24 * 60 * 60 * 1000;

// Finer fractions than 1e-9 of a day are below a millisecond anyway.
constexpr std::size_t k_max_fraction_digits = 9;

struct Unit
{
  std::string_view name;
  Count ms;
};

// In the order they must appear.
constexpr std::array<Unit, 5> k_units = {{
  {"d", 86'400'000},
  {"h", 3'600'000},
  {"m", 60'000},
  {"s", 1000},
  {"ms", 1},
}};

struct Number
{
  Count whole = 0; // saturates just above k_max_ms
  Count fraction = 0;
  Count fraction_scale = 1;
};

[[noreturn]] void reject_syntax(std::string_view text)
{
  throw_usage("invalid duration '" + escape_for_terminal(text, KeepNewlines::no) +
              "': expected a number with a unit (ms, s, m, h, d), e.g. 30s or 1h30m");
}

[[noreturn]] void reject_too_large(std::string_view text)
{
  throw_usage("invalid duration '" + escape_for_terminal(text, KeepNewlines::no) +
              "': must be at most 100 years");
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
  if (ms < 1000) {
    return std::to_string(ms) + "ms";
  }
  if (ms < 60'000) {
    return std::to_string(ms / 1000) + "." + std::to_string(ms % 1000 / 100) + "s";
  }
  const Count seconds = ms / 1000;
  if (seconds < 3600) {
    return std::to_string(seconds / 60) + "m" + two_digits(seconds % 60) + "s";
  }
  const Count minutes = seconds / 60;
  if (minutes < 24 * 60) {
    return std::to_string(minutes / 60) + "h" + two_digits(minutes % 60) + "m";
  }
  const Count hours = minutes / 60;
  return std::to_string(hours / 24) + "d" + std::to_string(hours % 24) + "h";
}

} // namespace

Milliseconds parse_duration(std::string_view text)
{
  std::size_t pos = 0;
  std::size_t next_unit = 0;
  Count total = 0;
  do {
    const std::optional<Number> number = read_number(text, pos);
    if (!number) {
      reject_syntax(text);
    }
    const std::string_view unit_name = read_unit(text, pos);
    Count unit_ms = 1000;
    if (unit_name.empty()) {
      if (next_unit != 0 || pos != text.size()) {
        reject_syntax(text);
      }
    } else {
      const auto unit =
        std::find_if(k_units.begin() + static_cast<std::ptrdiff_t>(next_unit), k_units.end(),
                     [&](const Unit& candidate) { return candidate.name == unit_name; });
      if (unit == k_units.end()) {
        reject_syntax(text);
      }
      next_unit = static_cast<std::size_t>(unit - k_units.begin()) + 1;
      unit_ms = unit->ms;
    }
    const std::optional<Count> ms = to_ms(*number, unit_ms);
    if (!ms || *ms > k_max_ms - total) {
      reject_too_large(text);
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

double to_seconds(Milliseconds duration)
{
  return static_cast<double>(duration.count()) / 1000.0;
}

} // namespace bgtask
