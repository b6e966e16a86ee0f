#include "e2e/e2e_support.hpp"

namespace json = boost::json;

using e2e::Result;
using Status = e2e::E2eTest;

namespace {

// The output lines `status` shows after its record part.
std::string shown_output(const Result& result)
{
  const auto marker = result.out.find("--- last ");
  if (marker == std::string::npos) {
    return "";
  }
  return result.out.substr(result.out.find('\n', marker) + 1);
}

std::string numbers(int from, int to)
{
  std::string text;
  for (int i = from; i <= to; ++i) {
    text += std::to_string(i) + "\n";
  }
  return text;
}

} // namespace

TEST_F(Status, ShowsTheRecordAndTheLastTenLinesOfOutput)
{
  const std::string id = start({"--name", "counter", "--", "seq", "1", "20"});
  EXPECT_EQ(wait_for(id), 0);
  const Result result = bg({"status", id});
  ASSERT_EQ(result.exit_code, 0) << result;
  EXPECT_NE(result.out.find(id), std::string::npos) << result;
  EXPECT_NE(result.out.find("counter"), std::string::npos) << result;
  EXPECT_NE(result.out.find("succeeded"), std::string::npos) << result;
  EXPECT_NE(result.out.find("seq 1 20"), std::string::npos) << result;
  EXPECT_EQ(shown_output(result), numbers(11, 20)) << result;
}

TEST_F(Status, ShowsTheLastNLinesWithTail)
{
  const std::string id = start({"--", "seq", "1", "20"});
  EXPECT_EQ(wait_for(id), 0);
  EXPECT_EQ(shown_output(bg({"status", "--tail", "3", id})), numbers(18, 20));
  EXPECT_EQ(shown_output(bg({"status", "--tail", "50", id})), numbers(1, 20));
  const Result none = bg({"status", "--tail", "0", id});
  EXPECT_EQ(none.exit_code, 0) << none;
  EXPECT_EQ(none.out.find("--- last"), std::string::npos) << none;
  EXPECT_EQ(bg({"status", "--tail", "x", id}).exit_code, 2);
}

TEST_F(Status, CountsAFinalLineWithoutNewline)
{
  const std::string id = start({"--", "printf", "a\\nb\\nc"});
  EXPECT_EQ(wait_for(id), 0);
  EXPECT_EQ(shown_output(bg({"status", "--tail", "2", id})), "b\nc\n");
}

TEST_F(Status, ShowsWhyATaskFailed)
{
  const std::string id = start({"-c", "exit 4"});
  EXPECT_EQ(wait_for(id), 4);
  const Result result = bg({"status", id});
  EXPECT_EQ(result.exit_code, 0) << result;
  EXPECT_NE(result.out.find("failed (exit 4)"), std::string::npos) << result;
  EXPECT_NE(result.out.find("exited with status 4"), std::string::npos) << result;
}

TEST_F(Status, PrintsAJsonArrayForSeveralTasks)
{
  const std::string first = start({"--", "true"});
  const std::string second = start({"--", "sleep", "60"});
  wait_for(first);
  const Result result = bg({"status", "--json", first, second.substr(0, 10)});
  ASSERT_EQ(result.exit_code, 0) << result;
  const auto value = e2e::parse_json(result.out);
  ASSERT_TRUE(value.is_array());
  ASSERT_EQ(value.get_array().size(), 2u);
  EXPECT_EQ(value.get_array()[0].at("id"), json::value(first));
  EXPECT_EQ(value.get_array()[0].at("state"), json::value("succeeded"));
  EXPECT_EQ(value.get_array()[1].at("id"), json::value(second));
  EXPECT_EQ(value.get_array()[1].at("state"), json::value("running"));
}

TEST_F(Status, AcceptsAFourCharacterPrefix)
{
  const std::string id = start({"--", "true"});
  const Result result = bg({"status", "--json", id.substr(0, 4)});
  ASSERT_EQ(result.exit_code, 0) << result;
  EXPECT_EQ(e2e::parse_json(result.out).at(0).at("id"), json::value(id));
}

TEST_F(Status, ShowsEachTaskOnceWhenNamedTwice)
{
  const std::string id = start({"--", "true"});
  const Result result = bg({"status", "--json", id, id.substr(0, 6)});
  ASSERT_EQ(result.exit_code, 0) << result;
  EXPECT_EQ(e2e::parse_json(result.out).as_array().size(), 1u);
}
