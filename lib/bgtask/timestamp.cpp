#include <bgtask/timestamp.hpp>

#include <date/date.h>

#include <ctime>
#include <sstream>

namespace bgtask {

namespace {

constexpr const char* k_timestamp_format = "%FT%TZ";

// True if `text` has the shape `dddd-dd-ddTdd:dd:dd.dddZ`. Checked before
// date::parse, which turns some malformed seconds fields into a NaN that it
// then converts to an integer (undefined behaviour, found by fuzzing).
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

} // namespace

TimePoint now()
{
  return std::chrono::floor<std::chrono::milliseconds>(std::chrono::system_clock::now());
}

std::string format_timestamp(TimePoint time)
{
  return date::format(k_timestamp_format, time);
}

// The round trip through format_timestamp rejects every non-canonical
// spelling date::parse would otherwise tolerate (missing or extra digits,
// out-of-range fields).
std::optional<TimePoint> parse_timestamp(std::string_view text)
{
  if (!has_timestamp_shape(text)) {
    return std::nullopt;
  }
  std::istringstream in{std::string(text)};
  TimePoint time{};
  in >> date::parse(k_timestamp_format, time);
  if (in.fail() || in.peek() != std::istringstream::traits_type::eof()) {
    return std::nullopt;
  }
  if (format_timestamp(time) != text) {
    return std::nullopt;
  }
  return time;
}

// Falls back to the UTC timestamp if the time is out of range for std::tm.
std::string format_local_time(TimePoint time)
{
  const auto seconds = std::chrono::floor<std::chrono::seconds>(time.time_since_epoch());
  const auto time_t_value = static_cast<std::time_t>(seconds.count());
  tzset();
  std::tm local{};
  if (localtime_r(&time_t_value, &local) == nullptr) {
    return format_timestamp(time);
  }
  char buffer[64];
  const std::size_t length = std::strftime(buffer, sizeof buffer, "%Y-%m-%d %H:%M:%S", &local);
  return std::string(buffer, length);
}

} // namespace bgtask
