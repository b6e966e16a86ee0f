#include <bgtask/util/test_seams.hpp>
#include <bgtask/util/timestamp.hpp>

#include <date/date.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <optional>
#include <string>

namespace bgtask {

namespace {

constexpr const char* k_timestamp_format = "%FT%TZ";

// True if `text` has the shape `dddd-dd-ddTdd:dd:dd.dddZ`. (date::parse,
// used here before, turned some malformed seconds fields into a NaN that it
// then converted to an integer: undefined behaviour, found by fuzzing.)
bool has_timestamp_shape(std::string_view text)
{
  constexpr std::string_view k_shape = "dddd-dd-ddTdd:dd:dd.dddZ";
  if (text.size() != k_shape.size()) {
    return false;
  }
  for (std::size_t i = 0; i < text.size(); ++i) {
    const bool digit = text[i] >= '0' && text[i] <= '9';
    if (k_shape[i] == 'd' ? !digit : text[i] != k_shape[i]) {
      return false;
    }
  }
  return true;
}

// Writes `value` as `width` decimal digits at `text[at]`.
void put_digits(std::string& text, std::size_t at, std::size_t width, unsigned value)
{
  for (std::size_t i = width; i-- > 0;) {
    text[at + i] = static_cast<char>('0' + value % 10);
    value /= 10;
  }
}

// The number spelled by the `width` digits at `text[at]`.
unsigned get_digits(std::string_view text, std::size_t at, std::size_t width)
{
  unsigned value = 0;
  for (std::size_t i = 0; i < width; ++i) {
    value = value * 10 + static_cast<unsigned>(text[at + i] - '0');
  }
  return value;
}

// A test's jump of the wall clock (BGTASK_TEST_CLOCK_OFFSET_FILE: a file
// holding signed milliseconds, read at every call); 0 outside tests.
std::chrono::milliseconds test_clock_offset()
{
  const char* path = test_seam(TestSeam::clock_offset_file);
  if (path == nullptr) {
    return std::chrono::milliseconds(0);
  }
  std::FILE* file = std::fopen(path, "re");
  long long offset = 0;
  if (file != nullptr) {
    if (std::fscanf(file, "%lld", &offset) != 1) {
      offset = 0;
    }
    std::fclose(file);
  }
  return std::chrono::milliseconds(offset);
}

} // namespace

TimePoint now()
{
  return std::chrono::floor<std::chrono::milliseconds>(std::chrono::system_clock::now()) +
         test_clock_offset();
}

namespace {

// `time` written digit by digit into `pattern` (date::format builds a
// stream per call, which `list` would pay on every row): the date at 0, the
// time of day at 11, the milliseconds at 20 where the pattern has room.
// nullopt for years outside 0000..9999, which are left to date::format.
std::optional<std::string> civil_text(TimePoint time, std::string pattern)
{
  const auto day = std::chrono::floor<std::chrono::days>(time);
  const std::chrono::year_month_day calendar{day};
  const int year = static_cast<int>(calendar.year());
  if (year < 0 || year > 9999) {
    return std::nullopt;
  }
  const std::chrono::hh_mm_ss clock{time - day};
  put_digits(pattern, 0, 4, static_cast<unsigned>(year));
  put_digits(pattern, 5, 2, static_cast<unsigned>(calendar.month()));
  put_digits(pattern, 8, 2, static_cast<unsigned>(calendar.day()));
  put_digits(pattern, 11, 2, static_cast<unsigned>(clock.hours().count()));
  put_digits(pattern, 14, 2, static_cast<unsigned>(clock.minutes().count()));
  put_digits(pattern, 17, 2, static_cast<unsigned>(clock.seconds().count()));
  if (pattern.size() >= 23) {
    put_digits(pattern, 20, 3, static_cast<unsigned>(clock.subseconds().count()));
  }
  return pattern;
}

} // namespace

std::string format_timestamp(TimePoint time)
{
  auto text = civil_text(time, "0000-00-00T00:00:00.000Z");
  return text ? std::move(*text) : date::format(k_timestamp_format, time);
}

// Accepts exactly what format_timestamp writes: the fixed shape, a real
// calendar date, hours below 24, minutes and seconds below 60.
std::optional<TimePoint> parse_timestamp(std::string_view text)
{
  if (!has_timestamp_shape(text)) {
    return std::nullopt;
  }
  const std::chrono::year_month_day calendar{
    std::chrono::year{static_cast<int>(get_digits(text, 0, 4))},
    std::chrono::month{get_digits(text, 5, 2)}, std::chrono::day{get_digits(text, 8, 2)}};
  const unsigned hours = get_digits(text, 11, 2);
  const unsigned minutes = get_digits(text, 14, 2);
  const unsigned seconds = get_digits(text, 17, 2);
  if (!calendar.ok() || hours > 23 || minutes > 59 || seconds > 59) {
    return std::nullopt;
  }
  return TimePoint{std::chrono::sys_days{calendar}} + std::chrono::hours(hours) +
         std::chrono::minutes(minutes) + std::chrono::seconds(seconds) +
         std::chrono::milliseconds(get_digits(text, 20, 3));
}

namespace {

// Local time: `time` shifted by the zone's offset then (TZ, else
// /etc/localtime), and that offset in seconds; nullopt if out of range.
std::optional<std::pair<date::sys_seconds, long>> to_local(TimePoint time)
{
  const auto seconds = std::chrono::floor<std::chrono::seconds>(time);
  const auto time_t_value = static_cast<std::time_t>(seconds.time_since_epoch().count());
  // tzset() stats the zone file on every call; call it only when TZ changed
  // (per thread: list formats rows on several).
  thread_local std::optional<std::string> seen_tz;
  const char* tz = std::getenv("TZ");
  const std::string current_tz = tz != nullptr ? std::string("=") + tz : std::string();
  if (seen_tz != current_tz) {
    tzset();
    seen_tz = current_tz;
  }
  std::tm local{};
  if (localtime_r(&time_t_value, &local) == nullptr) {
    return std::nullopt;
  }
  return std::pair(seconds + std::chrono::seconds(local.tm_gmtoff), local.tm_gmtoff);
}

} // namespace

// Falls back to the UTC timestamp if the time is out of range for std::tm.
std::string format_local_time(TimePoint time)
{
  const auto local = to_local(time);
  if (!local) {
    return format_timestamp(time);
  }
  auto text = civil_text(local->first, "0000-00-00 00:00:00");
  return text ? std::move(*text) : date::format("%F %T", local->first);
}

std::string format_list_time(TimePoint time, TimePoint today)
{
  const auto local = to_local(time);
  const auto local_today = to_local(today);
  if (local && local_today &&
      std::chrono::floor<date::days>(local->first) ==
        std::chrono::floor<date::days>(local_today->first)) {
    return format_local_time(time).substr(11);
  }
  return format_local_time(time);
}

std::string format_short_list_time(TimePoint time, TimePoint today)
{
  const std::string text = format_list_time(time, today);
  // `18:12:03` or `2026-12-05 18:12:03`; a time format_local_time could not
  // convert is shown whole.
  if (text.size() == 8) {
    return text.substr(0, 5);
  }
  return text.size() == 19 && text[10] == ' ' ? text.substr(5, 5) : text;
}

std::string format_local_time_with_offset(TimePoint time)
{
  const auto local = to_local(time);
  if (!local) {
    return format_timestamp(time);
  }
  const long offset = local->second;
  const long minutes = (offset < 0 ? -offset : offset) / 60;
  char zone[48];
  std::snprintf(zone, sizeof zone, " %c%02ld:%02ld", offset < 0 ? '-' : '+', minutes / 60,
                minutes % 60);
  auto text = civil_text(local->first, "0000-00-00 00:00:00");
  return (text ? std::move(*text) : date::format("%F %T", local->first)) + zone;
}

} // namespace bgtask
