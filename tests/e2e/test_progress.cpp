#include "e2e/e2e_support.hpp"

namespace json = boost::json;

using e2e::Result;
using Progress = e2e::E2eTest;

namespace {

std::string quoted(const std::string& text)
{
  return "'" + text + "'";
}

} // namespace

TEST_F(Progress, ReportsFromInsideTheTaskThroughItsId)
{
  const std::string id = start({"-c", quoted(e2e::bgtask_binary()) +
                                        " progress --percent 50 --message half && echo reported"});
  EXPECT_EQ(wait_for(id), 0);
  EXPECT_EQ(output_of(id), "reported\n");
  const auto r = record(id);
  ASSERT_TRUE(r.at("progress").is_object());
  const auto& progress = r.at("progress").as_object();
  EXPECT_EQ(progress.at("percent"), json::value(50.0));
  EXPECT_EQ(progress.at("message"), json::value("half"));
  EXPECT_TRUE(progress.at("current").is_null());
  EXPECT_TRUE(progress.at("updated_at").is_string());
  bool found = false;
  for (const auto& event : r.at("events").as_array()) {
    found = found || event.at("kind") == json::value("progress");
  }
  EXPECT_TRUE(found);
}

TEST_F(Progress, ReportsForAnExplicitId)
{
  const std::string id = start({"--", "sleep", "60"});
  const Result result =
    bg({"progress", id.substr(0, 6), "--current", "3", "--total", "10", "--message", "copying"});
  EXPECT_EQ(result.exit_code, 0) << result;
  EXPECT_EQ(result.out, "");
  const auto r = record(id);
  EXPECT_EQ(r.at("state"), json::value("running"));
  const auto& progress = r.at("progress").as_object();
  EXPECT_EQ(progress.at("current"), json::value(3));
  EXPECT_EQ(progress.at("total"), json::value(10));
  EXPECT_EQ(progress.at("message"), json::value("copying"));
  const Result status = bg({"status", id});
  EXPECT_NE(status.out.find("3/10 copying"), std::string::npos) << status;
}

TEST_F(Progress, ReplacesTheEarlierReport)
{
  const std::string id = start({"--", "sleep", "60"});
  EXPECT_EQ(bg({"progress", id, "--percent", "10"}).exit_code, 0);
  EXPECT_EQ(bg({"progress", id, "--percent", "90.5"}).exit_code, 0);
  const auto r = record(id);
  EXPECT_EQ(r.at("progress").at("percent"), json::value(90.5));
}

TEST_F(Progress, IsRefusedForAFinishedTask)
{
  const std::string id = start({"--", "true"});
  EXPECT_EQ(wait_for(id), 0);
  const std::string before = record_bytes(id);
  const Result result = bg({"progress", id, "--percent", "10"});
  EXPECT_EQ(result.exit_code, 1) << result;
  EXPECT_NE(result.err.find("not running"), std::string::npos) << result;
  EXPECT_EQ(record_bytes(id), before);
}

TEST_F(Progress, NeedsAnIdOutsideATask)
{
  const Result result = bg({"progress", "--percent", "10"});
  EXPECT_EQ(result.exit_code, 2) << result;
  EXPECT_NE(result.err.find("BGTASK_ID"), std::string::npos) << result;
}

TEST_F(Progress, RefusesEmptyOrInvalidReports)
{
  const std::string id = start({"--", "sleep", "60"});
  const std::string before = record_bytes(id);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"progress", id},
        {"progress", id, "--percent", "101"},
        {"progress", id, "--percent", "-1"},
        {"progress", id, "--percent", "nan"},
        {"progress", id, "--current", "x"},
        {"progress", id, "--message", std::string(2000, 'm')}}) {
    const Result result = bg(args);
    EXPECT_EQ(result.exit_code, 2) << result;
  }
  EXPECT_EQ(record_bytes(id), before);
}

TEST_F(Progress, UpdatesArePartial)
{
  const std::string id = start({"--", "sleep", "60"});
  ASSERT_EQ(bg({"progress", id, "--current", "3", "--total", "10"}).exit_code, 0);
  ASSERT_EQ(bg({"progress", id, "--message", "linking"}).exit_code, 0);
  const auto progress = record(id).at("progress").as_object();
  EXPECT_EQ(progress.at("current"), json::value(3));
  EXPECT_EQ(progress.at("total"), json::value(10));
  EXPECT_EQ(progress.at("message"), json::value("linking"));
  ASSERT_EQ(bg({"progress", id, "--current", "4"}).exit_code, 0);
  EXPECT_EQ(record(id).at("progress").at("total"), json::value(10));
  EXPECT_EQ(record(id).at("progress").at("message"), json::value("linking"));
  EXPECT_EQ(bg({"cancel", "--grace", "100ms", id}).exit_code, 0);
}

TEST_F(Progress, RefusesCurrentAboveTotal)
{
  const std::string id = start({"--", "sleep", "60"});
  const Result at_once = bg({"progress", id, "--current", "11", "--total", "10"});
  EXPECT_EQ(at_once.exit_code, 2) << at_once;
  EXPECT_NE(at_once.err.find("more than --total"), std::string::npos) << at_once;
  ASSERT_EQ(bg({"progress", id, "--total", "10"}).exit_code, 0);
  const Result later = bg({"progress", id, "--current", "12"});
  EXPECT_EQ(later.exit_code, 2) << later;
  EXPECT_TRUE(record(id).at("progress").at("current").is_null());
  EXPECT_EQ(bg({"cancel", "--grace", "100ms", id}).exit_code, 0);
}
