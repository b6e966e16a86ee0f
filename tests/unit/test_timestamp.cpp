#include <bgtask/util/timestamp.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <optional>
#include <string>

using bgtask::format_local_time;
using bgtask::format_timestamp;
using bgtask::parse_timestamp;
using bgtask::TimePoint;
using namespace std::chrono_literals;

namespace {

// 2026-11-29T18:12:03.123Z
const TimePoint k_example = TimePoint(1'795'975'923'123ms);

// Sets TZ for the lifetime of the object and restores it afterwards, without
// calling tzset(), so format_local_time must pick up the change itself.
class ScopedTimeZone
{
public:
  explicit ScopedTimeZone(const char* zone)
  {
    if (const char* old = std::getenv("TZ")) {
      m_old = old;
    }
    ::setenv("TZ", zone, 1);
  }

  ~ScopedTimeZone()
  {
    if (m_old) {
      ::setenv("TZ", m_old->c_str(), 1);
    } else {
      ::unsetenv("TZ");
    }
  }

  ScopedTimeZone(const ScopedTimeZone&) = delete;
  ScopedTimeZone& operator=(const ScopedTimeZone&) = delete;

private:
  std::optional<std::string> m_old;
};

} // namespace

TEST(Timestamp, FormatsAsUtcWithMilliseconds)
{
  EXPECT_EQ(format_timestamp(k_example), "2026-11-29T18:12:03.123Z");
  EXPECT_EQ(format_timestamp(TimePoint(0ms)), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(format_timestamp(TimePoint(-1ms)), "1969-12-31T23:59:59.999Z");
  EXPECT_EQ(format_timestamp(TimePoint(7ms)), "1970-01-01T00:00:00.007Z");
}

TEST(Timestamp, ParsesWhatItFormats)
{
  EXPECT_EQ(parse_timestamp("2026-11-29T18:12:03.123Z"), k_example);
  EXPECT_EQ(parse_timestamp("2024-02-29T00:00:00.000Z"), TimePoint(1'709'164'800'000ms));
}

TEST(Timestamp, RoundTripsAtMillisecondPrecision)
{
  for (const auto offset : {0ms, 1ms, 999ms, 1000ms, 86'399'999ms, 31'622'400'001ms}) {
    const TimePoint time = k_example + offset;
    const std::string text = format_timestamp(time);
    EXPECT_EQ(parse_timestamp(text), time) << text;
  }
  const TimePoint current = bgtask::now();
  EXPECT_EQ(parse_timestamp(format_timestamp(current)), current);
}

TEST(Timestamp, NowIsTheCurrentTimeInMilliseconds)
{
  const auto before = std::chrono::system_clock::now();
  const TimePoint current = bgtask::now();
  const auto after = std::chrono::system_clock::now();
  EXPECT_LE(before - 1ms, current);
  EXPECT_LE(current, after);
}

TEST(Timestamp, RejectsAnythingFormatTimestampWouldNotWrite)
{
  for (const char* text : {
         "",
         "2026-11-29T18:12:03Z",
         "2026-11-29T18:12:03.12Z",
         "2026-11-29T18:12:03.1234Z",
         "2026-11-29T18:12:03.123",
         "2026-11-29T18:12:03.123+00:00",
         "2026-11-29t18:12:03.123Z",
         "2026-11-29 18:12:03.123Z",
         "2026-11-29T18:12:03.123Zx",
         " 2026-11-29T18:12:03.123Z",
         "2026-13-01T00:00:00.000Z",
         "2026-02-30T00:00:00.000Z",
         "2026-11-29T24:00:00.000Z",
         "2026-11-29T18:60:00.000Z",
         "2026-1-29T18:12:03.123Z",
         "26-11-29T18:12:03.123Z",
         "not a timestamp",
       }) {
    EXPECT_EQ(parse_timestamp(text), std::nullopt) << text;
  }
}

TEST(Timestamp, FormatsLocalTimeInTheTimeZoneFromTz)
{
  {
    const ScopedTimeZone zone("UTC0");
    EXPECT_EQ(format_local_time(k_example), "2026-11-29 18:12:03");
  }
  {
    const ScopedTimeZone zone("EST5");
    EXPECT_EQ(format_local_time(k_example), "2026-11-29 13:12:03");
  }
  {
    const ScopedTimeZone zone("XYZ-9");
    EXPECT_EQ(format_local_time(k_example), "2026-11-30 03:12:03");
  }
}

TEST(Timestamp, FormatsLocalTimeOfNegativeMillisecondsInThePreviousSecond)
{
  const ScopedTimeZone zone("UTC0");
  EXPECT_EQ(format_local_time(TimePoint(-1ms)), "1969-12-31 23:59:59");
}
