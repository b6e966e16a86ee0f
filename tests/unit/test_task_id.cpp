#include <bgtask/core/task_id.hpp>
#include <bgtask/util/error.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <set>
#include <string>
#include <vector>

using bgtask::is_task_id;
using bgtask::is_task_id_prefix;
using bgtask::make_task_id;
using namespace std::chrono_literals;

namespace {

using Clock = std::chrono::system_clock;

constexpr std::string_view k_alphabet = "0123456789abcdefghjkmnpqrstvwxyz";

const Clock::time_point k_id_epoch = std::chrono::sys_days{std::chrono::January / 1 / 2024};

std::string rejection_message(std::string_view text)
{
  try {
    bgtask::check_task_id_prefix(text);
  } catch (const bgtask::Error& error) {
    EXPECT_EQ(error.code(), bgtask::ExitCode::usage);
    return error.what();
  }
  ADD_FAILURE() << "accepted '" << text << "'";
  return {};
}

bool has_control_bytes(std::string_view text)
{
  return std::any_of(text.begin(), text.end(), [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte < 0x20 || byte == 0x7f;
  });
}

} // namespace

TEST(TaskId, HasTwelveCharactersFromTheIdAlphabet)
{
  for (int i = 0; i < 200; ++i) {
    const std::string id = make_task_id(Clock::now());
    ASSERT_EQ(id.size(), 12U);
    EXPECT_EQ(id.find_first_not_of(k_alphabet), std::string::npos) << id;
    EXPECT_TRUE(is_task_id(id)) << id;
  }
}

TEST(TaskId, EncodesMillisecondsSinceTheIdEpochInTheFirstEightCharacters)
{
  EXPECT_EQ(make_task_id(k_id_epoch).substr(0, 8), "00000000");
  EXPECT_EQ(make_task_id(k_id_epoch + 1ms).substr(0, 8), "00000001");
  EXPECT_EQ(make_task_id(k_id_epoch + 31ms).substr(0, 8), "0000000z");
  EXPECT_EQ(make_task_id(k_id_epoch + 32ms).substr(0, 8), "00000010");
  EXPECT_EQ(make_task_id(k_id_epoch + 999us).substr(0, 8), "00000000");
}

TEST(TaskId, ClampsTimesOutsideTheEncodableRange)
{
  EXPECT_EQ(make_task_id(k_id_epoch - 1ms).substr(0, 8), "00000000");
  EXPECT_EQ(make_task_id(Clock::time_point::min()).substr(0, 8), "00000000");
  EXPECT_EQ(make_task_id(k_id_epoch + std::chrono::milliseconds(1LL << 40)).substr(0, 8),
            "zzzzzzzz");
  EXPECT_EQ(make_task_id(Clock::time_point::max()).substr(0, 8), "zzzzzzzz");
}

TEST(TaskId, SortsByCreationTime)
{
  const std::vector<Clock::duration> steps = {1ms, 2ms, 31ms, 1s, 1min, 1h, 24h, 24h * 365};
  Clock::time_point time = k_id_epoch;
  std::string previous = make_task_id(time);
  for (int round = 0; round < 20; ++round) {
    for (const Clock::duration step : steps) {
      time += step;
      const std::string id = make_task_id(time);
      EXPECT_LT(previous, id);
      previous = id;
    }
  }
}

TEST(TaskId, IsAlmostAlwaysDistinctWithinTheSameMillisecond)
{
  const Clock::time_point time = k_id_epoch + 12345ms;
  std::set<std::string> ids;
  for (int i = 0; i < 1000; ++i) {
    ids.insert(make_task_id(time));
  }
  // 20 random bits: about 0.5 colliding pairs are expected among 1000 IDs.
  EXPECT_GE(ids.size(), 990U);
}

TEST(TaskId, RecognisesOnlyCompleteWellFormedIds)
{
  EXPECT_TRUE(is_task_id("0123456789ab"));
  EXPECT_TRUE(is_task_id("zzzzzzzzzzzz"));
  EXPECT_FALSE(is_task_id("0123456789a"));
  EXPECT_FALSE(is_task_id("0123456789abc"));
  EXPECT_FALSE(is_task_id("0123456789AB"));
  EXPECT_FALSE(is_task_id("0123456789ai"));
  EXPECT_FALSE(is_task_id("0123456789al"));
  EXPECT_FALSE(is_task_id("0123456789ao"));
  EXPECT_FALSE(is_task_id("0123456789au"));
  EXPECT_FALSE(is_task_id(std::string_view("0123456789a\0", 12)));
  EXPECT_FALSE(is_task_id(""));
}

TEST(TaskId, AcceptsPrefixesOfFourToTwelveIdCharacters)
{
  EXPECT_TRUE(is_task_id_prefix("0123"));
  EXPECT_TRUE(is_task_id_prefix("abcdefg"));
  EXPECT_TRUE(is_task_id_prefix("0123456789ab"));
  EXPECT_NO_THROW(bgtask::check_task_id_prefix("01hx"));
}

TEST(TaskId, RejectsPrefixesOutsideTheGrammar)
{
  for (const std::string& text :
       {std::string(".."), std::string("../x"), std::string("a/b"), std::string("-rf"),
        std::string("x\n"), std::string(10000, 'a'), std::string("\x1b[2J"),
        std::string("\x1b]52;c;SGVsbG8=\x07"), std::string(""), std::string("*"),
        std::string("abc"), std::string("0123456789abc"), std::string("ABC"), std::string("abcd "),
        std::string("@@"), std::string("@first"), std::string("abc\0", 4), std::string("-abcd")}) {
    EXPECT_FALSE(is_task_id_prefix(text)) << text;
    const std::string message = rejection_message(text);
    EXPECT_FALSE(has_control_bytes(message)) << message;
  }
}

TEST(TaskId, AcceptsEitherCaseAndTheNewestTaskReferences)
{
  for (const std::string_view text : {"ABCD", "2NK5t7f30b55", "@", "@last"}) {
    EXPECT_NO_THROW(bgtask::check_task_id_prefix(text)) << text;
  }
  EXPECT_EQ(bgtask::lowered("2NK5T7F30B55"), "2nk5t7f30b55");
}

TEST(TaskId, ExplainsTheExpectedFormat)
{
  EXPECT_EQ(
    rejection_message("abc"),
    "invalid task ID 'abc': expected 4 to 12 characters of 0-9 and a-z (except i, l, o, u), @ or "
    "@last");
}

TEST(TaskId, EscapesControlCharactersInTheMessage)
{
  EXPECT_NE(rejection_message("x\n").find("'x\\x0a'"), std::string::npos);
  EXPECT_NE(rejection_message("\x1b[2Jabcd").find("'\\x1b[2Jabcd'"), std::string::npos);
}

TEST(TaskId, TruncatesLongTextInTheMessage)
{
  const std::string message = rejection_message(std::string(10000, 'a'));
  EXPECT_LT(message.size(), 200U);
  EXPECT_NE(message.find("'" + std::string(40, 'a') + "...'"), std::string::npos) << message;
}

TEST(TaskId, TruncatesAtACharacterBoundary)
{
  const std::string message = rejection_message(std::string(39, 'a') + "日本語");
  EXPECT_NE(message.find("'" + std::string(39, 'a') + "...'"), std::string::npos) << message;
  EXPECT_EQ(message.find("\\x"), std::string::npos) << message;
}

TEST(TaskId, SortsAfterTheNewestIdWhenTheClockWasSetBack)
{
  const std::string newest = make_task_id(k_id_epoch + 24h);
  const std::string after_jump = make_task_id(k_id_epoch + 23h, newest);
  EXPECT_GT(after_jump, newest);
  EXPECT_EQ(after_jump.substr(0, 8), make_task_id(k_id_epoch + 24h + 1ms).substr(0, 8));
  // A clock ahead of the newest ID keeps its own time.
  EXPECT_EQ(make_task_id(k_id_epoch + 25h, newest).substr(0, 8),
            make_task_id(k_id_epoch + 25h).substr(0, 8));
  // Something that is not an ID is no lower bound.
  EXPECT_EQ(make_task_id(k_id_epoch + 1ms, "not-an-id").substr(0, 8), "00000001");
}
