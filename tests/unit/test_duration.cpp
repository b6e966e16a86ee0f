#include <bgtask/util/duration.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <string>

using bgtask::Milliseconds;
using bgtask::parse_duration;
using namespace std::chrono_literals;

namespace {

// The reason parse_duration gives for refusing `text`.
std::string rejection_message(std::string_view text)
{
  const auto result = parse_duration(text);
  if (result) {
    ADD_FAILURE() << "accepted '" << text << "'";
    return {};
  }
  return result.error();
}

// What parse_duration makes of `text`, which it must accept.
Milliseconds parsed(std::string_view text)
{
  const auto result = parse_duration(text);
  EXPECT_TRUE(result) << text << ": " << (result ? "" : result.error());
  return result.value_or(Milliseconds(-1));
}

} // namespace

TEST(Duration, ParsesEachUnit)
{
  EXPECT_EQ(parsed("500ms"), 500ms);
  EXPECT_EQ(parsed("30s"), 30s);
  EXPECT_EQ(parsed("5m"), 5min);
  EXPECT_EQ(parsed("2h"), 2h);
  EXPECT_EQ(parsed("7d"), 7 * 24h);
}

TEST(Duration, ParsesCombinedUnitsInDescendingOrder)
{
  EXPECT_EQ(parsed("1h30m"), 90min);
  EXPECT_EQ(parsed("1d2h3m4s5ms"), 24h + 2h + 3min + 4s + 5ms);
  EXPECT_EQ(parsed("2m500ms"), 120500ms);
}

TEST(Duration, ParsesDecimalFractions)
{
  EXPECT_EQ(parsed("1.5s"), 1500ms);
  EXPECT_EQ(parsed("0.5h"), 30min);
  EXPECT_EQ(parsed("1.25m"), 75s);
}

TEST(Duration, RoundsSubMillisecondFractionsDown)
{
  EXPECT_EQ(parsed("1.9ms"), 1ms);
  EXPECT_EQ(parsed("0.0019s"), 1ms);
}

TEST(Duration, TreatsBareNumbersAsSeconds)
{
  EXPECT_EQ(parsed("10"), 10s);
  EXPECT_EQ(parsed("0.25"), 250ms);
}

TEST(Duration, AcceptsZero)
{
  EXPECT_EQ(parsed("0"), 0ms);
  EXPECT_EQ(parsed("0s"), 0ms);
  EXPECT_EQ(parsed("0.0ms"), 0ms);
}

TEST(Duration, AcceptsExactlyOneHundredYears)
{
  EXPECT_EQ(parsed("36525d"), 36525 * 24h);
}

TEST(Duration, RejectsNegativeValues)
{
  EXPECT_EQ(rejection_message("-5s"), "invalid duration '-5s': expected a number with a unit "
                                      "(ms, s, m, h, d), e.g. 30s or 1h30m");
  rejection_message("-0");
  rejection_message("+5s");
}

TEST(Duration, RejectsExponentsAndHugeNumbers)
{
  rejection_message("1e309");
  rejection_message("1e3s");
  rejection_message("1" + std::string(400, '0'));
}

TEST(Duration, RejectsValuesAboveOneHundredYears)
{
  EXPECT_EQ(rejection_message("99999999999d"),
            "invalid duration '99999999999d': must be at most 100 years");
  rejection_message("36526d");
  rejection_message("36525d1ms");
  rejection_message("36525.000001d");
  rejection_message("3155760000.0011s");
  rejection_message("3155760000001ms");
  rejection_message("99999999999999999999999999999999ms");
}

TEST(Duration, RejectsUnknownUnits)
{
  rejection_message("5x");
  rejection_message("5S");
  rejection_message("5sec");
  rejection_message("5us");
}

TEST(Duration, RejectsEmptyOrUnitOnlyInput)
{
  rejection_message("");
  rejection_message("s");
  rejection_message("ms");
}

TEST(Duration, RejectsRepeatedUnits)
{
  rejection_message("1h1h");
  rejection_message("1s1s");
}

TEST(Duration, RejectsMisorderedUnits)
{
  rejection_message("30m1h");
  rejection_message("1ms1s");
}

TEST(Duration, RejectsWhitespace)
{
  rejection_message(" 5s");
  rejection_message("5s ");
  rejection_message("1h 30m");
  rejection_message("5 s");
}

TEST(Duration, RejectsNanInfAndHex)
{
  rejection_message("nan");
  rejection_message("inf");
  rejection_message("0x10");
}

TEST(Duration, RejectsMalformedNumbers)
{
  rejection_message(".5s");
  rejection_message("5.s");
  rejection_message("1.2.3s");
  rejection_message("1,5s");
  rejection_message("1.0000000001s");
}

TEST(Duration, RejectsBareNumberAfterAUnit)
{
  rejection_message("1h30");
}

TEST(Duration, EscapesControlCharactersInTheMessage)
{
  const std::string message = rejection_message("5\x1b[2J");
  EXPECT_EQ(message.find('\x1b'), std::string::npos);
  EXPECT_NE(message.find("5\\x1b[2J"), std::string::npos);
}

TEST(Duration, FormatsMillisecondsBelowOneSecond)
{
  EXPECT_EQ(bgtask::format_duration(0ms), "0ms");
  EXPECT_EQ(bgtask::format_duration(850ms), "850ms");
  EXPECT_EQ(bgtask::format_duration(999ms), "999ms");
}

TEST(Duration, FormatsTenthsOfSecondsBelowOneMinute)
{
  EXPECT_EQ(bgtask::format_duration(1000ms), "1.0s");
  EXPECT_EQ(bgtask::format_duration(12345ms), "12.3s");
  EXPECT_EQ(bgtask::format_duration(59999ms), "59.9s");
}

TEST(Duration, FormatsMinutesWithPaddedSeconds)
{
  EXPECT_EQ(bgtask::format_duration(4min + 5s), "4m05s");
  EXPECT_EQ(bgtask::format_duration(1min), "1m00s");
  EXPECT_EQ(bgtask::format_duration(59min + 59s + 999ms), "59m59s");
}

TEST(Duration, FormatsHoursWithPaddedMinutes)
{
  EXPECT_EQ(bgtask::format_duration(2h + 10min), "2h10m");
  EXPECT_EQ(bgtask::format_duration(1h + 5min + 30s), "1h05m");
  EXPECT_EQ(bgtask::format_duration(23h + 59min), "23h59m");
}

TEST(Duration, FormatsDaysWithHours)
{
  EXPECT_EQ(bgtask::format_duration(3 * 24h + 4h), "3d4h");
  EXPECT_EQ(bgtask::format_duration(24h), "1d0h");
  EXPECT_EQ(bgtask::format_duration(36525 * 24h), "36525d0h");
}

TEST(Duration, FormatsNegativeDurationsWithASign)
{
  EXPECT_EQ(bgtask::format_duration(-1500ms), "-1.5s");
  EXPECT_EQ(bgtask::format_duration(Milliseconds::min()), "-106751991167d7h");
}

TEST(Duration, ConvertsToFloatingSeconds)
{
  EXPECT_DOUBLE_EQ(bgtask::to_seconds(1500ms), 1.5);
  EXPECT_DOUBLE_EQ(bgtask::to_seconds(0ms), 0.0);
  EXPECT_DOUBLE_EQ(bgtask::to_seconds(90min), 5400.0);
}

TEST(Duration, ConvertsStoredSecondsBackRoundedAndBounded)
{
  EXPECT_EQ(bgtask::from_seconds(5), 5000ms);
  EXPECT_EQ(bgtask::from_seconds(0.29), 290ms); // 289.99... in binary: rounded, not cut
  EXPECT_EQ(bgtask::from_seconds(bgtask::to_seconds(1234ms)), 1234ms);
  EXPECT_EQ(bgtask::from_seconds(-3), 0ms);
  EXPECT_EQ(bgtask::from_seconds(std::nan("")), 0ms);
  EXPECT_EQ(bgtask::from_seconds(1e300), 36525 * 24h);
}
