#include "e2e/e2e_support.hpp"

namespace json = boost::json;

using e2e::Result;
using Cancel = e2e::E2eTest;
using namespace std::chrono_literals;

namespace {

// A shell string that ignores TERM (as do the processes it starts), keeps a
// descendant in a session of its own, and says when it is ready.
constexpr const char* k_stubborn =
  "trap '' TERM; setsid sleep 60 & echo ready; while :; do sleep 0.05; done";

// True once no live process carries the task's BGTASK_ID.
bool task_processes_gone(const std::string& id)
{
  return e2e::eventually([&] { return e2e::processes_with_environment("BGTASK_ID=" + id).empty(); },
                         10s);
}

} // namespace

TEST_F(Cancel, StopsARunningTask)
{
  const std::string id = start({"--", "sleep", "60"});
  const Result result = bg({"cancel", id});
  EXPECT_EQ(result.exit_code, 0) << result;
  EXPECT_EQ(result.out, id + " cancelled\n");
  const auto r = record(id);
  EXPECT_EQ(r.at("state"), json::value("cancelled"));
  EXPECT_TRUE(r.at("finished_at").is_string());
  EXPECT_EQ(r.at("signal"), json::value(15));
  EXPECT_EQ(wait_for(id), 125);
  EXPECT_TRUE(task_processes_gone(id));
}

TEST_F(Cancel, KillsACommandThatIgnoresTermAfterTheGrace)
{
  const std::string id = start({"-c", k_stubborn});
  ASSERT_TRUE(wait_for_output(id, "ready"));
  const Result result = bg({"cancel", "--grace", "300ms", id});
  EXPECT_EQ(result.exit_code, 0) << result;
  const auto r = record(id);
  EXPECT_EQ(r.at("state"), json::value("cancelled"));
  EXPECT_EQ(r.at("signal"), json::value(9));
  EXPECT_EQ(wait_for(id), 125);
  EXPECT_TRUE(task_processes_gone(id));
}

TEST_F(Cancel, TimeoutKillsACommandThatIgnoresTermAfterTheGrace)
{
  const std::string id = start({"--timeout", "500ms", "--grace", "300ms", "-c", k_stubborn});
  EXPECT_EQ(wait_for(id), 124);
  const auto r = record(id);
  EXPECT_EQ(r.at("state"), json::value("timed_out"));
  ASSERT_TRUE(r.at("error").is_string());
  EXPECT_NE(std::string(r.at("error").as_string()).find("timed out"), std::string::npos);
  EXPECT_TRUE(task_processes_gone(id));
}

TEST_F(Cancel, TimeoutStopsACommandThatObeysTerm)
{
  const std::string id = start({"--timeout", "200ms", "--", "sleep", "60"});
  EXPECT_EQ(wait_for(id), 124);
  EXPECT_EQ(state_of(id), "timed_out");
  EXPECT_EQ(record(id).at("signal"), json::value(15));
}

TEST_F(Cancel, LeavesAFinishedTaskUnchanged)
{
  const std::string id = start({"-c", "exit 3"});
  EXPECT_EQ(wait_for(id), 3);
  const std::string before = record_bytes(id);
  const Result result = bg({"cancel", id});
  EXPECT_EQ(result.exit_code, 0) << result;
  EXPECT_EQ(result.out, id + " already failed (exit 3)\n");
  EXPECT_EQ(record_bytes(id), before);
  EXPECT_EQ(bg({"cancel", "--json", id}).exit_code, 0);
  EXPECT_EQ(record_bytes(id), before);
}

TEST_F(Cancel, PrintsAJsonArrayOfTheFinalRecords)
{
  const std::string running = start({"--", "sleep", "60"});
  const std::string done = start({"--", "true"});
  EXPECT_EQ(wait_for(done), 0);
  const Result result = bg({"cancel", "--json", running, done});
  EXPECT_EQ(result.exit_code, 0) << result;
  const auto value = e2e::parse_json(result.out);
  ASSERT_TRUE(value.is_array());
  ASSERT_EQ(value.get_array().size(), 2u);
  EXPECT_EQ(value.get_array()[0].at("state"), json::value("cancelled"));
  EXPECT_EQ(value.get_array()[1].at("state"), json::value("succeeded"));
}

TEST_F(Cancel, StopsSeveralTasksAtOnce)
{
  const std::string a = start({"--", "sleep", "60"});
  const std::string b = start({"-c", "sleep 60; echo never"});
  const Result result = bg({"cancel", "--grace", "1s", a, b});
  EXPECT_EQ(result.exit_code, 0) << result;
  EXPECT_EQ(state_of(a), "cancelled");
  EXPECT_EQ(state_of(b), "cancelled");
  EXPECT_EQ(bg({"wait", a, b}).exit_code, 125);
}

TEST_F(Cancel, EndsAWaitWith125)
{
  const std::string id = start({"--", "sleep", "60"});
  e2e::Process waiter = bg_async({"wait", id});
  ASSERT_TRUE(e2e::eventually([&] { return e2e::is_blocked_in_poll(waiter.pid()); }));
  EXPECT_EQ(bg({"cancel", id}).exit_code, 0);
  const Result result = waiter.finish();
  EXPECT_EQ(result.exit_code, 125) << result;
}

TEST_F(Cancel, UsesTheGraceTheTaskWasStartedWith)
{
  const std::string id = start({"--grace", "300ms", "-c", "trap '' TERM; echo ready; sleep 60"});
  ASSERT_TRUE(e2e::eventually([&] { return output_of(id) == "ready\n"; }));
  const Result result = bg({"cancel", id});
  EXPECT_EQ(result.exit_code, 0) << result;
  const auto r = record(id);
  EXPECT_EQ(r.at("state"), boost::json::value("cancelled"));
  EXPECT_EQ(r.at("cancel_request").at("grace_s"), boost::json::value(0.3)) << r;
  EXPECT_EQ(r.at("signal"), boost::json::value(9)) << r;
}

TEST_F(Cancel, QuietPrintsNothing)
{
  const std::string id = start({"--", "sleep", "60"});
  const Result result = bg({"cancel", "--quiet", "--grace", "100ms", id});
  EXPECT_EQ(result.exit_code, 0) << result;
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(result.err, "");
  const Result waited = bg({"wait", "-q", id});
  EXPECT_EQ(waited.exit_code, 125) << waited;
  EXPECT_EQ(waited.out, "");
}
