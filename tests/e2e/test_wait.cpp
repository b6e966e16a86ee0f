#include "e2e/e2e_support.hpp"
#include <csignal>
#include <filesystem>

namespace json = boost::json;

using e2e::Result;
using Wait = e2e::E2eTest;

TEST_F(Wait, ExitsWithTheTaskExitCode)
{
  const std::string ok = start({"--", "true"});
  const std::string three = start({"-c", "exit 3"});
  const std::string max = start({"-c", "exit 255"});
  EXPECT_EQ(wait_for(ok), 0);
  EXPECT_EQ(wait_for(three), 3);
  EXPECT_EQ(wait_for(max), 255);
}

TEST_F(Wait, Exits128PlusTheSignalThatKilledTheTask)
{
  const std::string killed = start({"-c", "kill -KILL $$"});
  const std::string terminated = start({"-c", "kill -TERM $$"});
  EXPECT_EQ(wait_for(killed), 137);
  EXPECT_EQ(wait_for(terminated), 143);
  const auto r = record(killed);
  EXPECT_EQ(r.at("state"), json::value("failed"));
  EXPECT_EQ(r.at("signal"), json::value(9));
  EXPECT_TRUE(r.at("exit_code").is_null());
}

TEST_F(Wait, PrintsEachTaskWithItsState)
{
  const std::string id = start({"-c", "exit 2"});
  const Result result = bg({"wait", id});
  EXPECT_EQ(result.exit_code, 2) << result;
  EXPECT_EQ(result.out, id + " failed (exit 2)\n");
}

TEST_F(Wait, Exits4WhenItsOwnTimeoutPassesFirst)
{
  const std::string id = start({"--", "sleep", "60"});
  const Result result = bg({"wait", "--timeout", "200ms", id});
  EXPECT_EQ(result.exit_code, 4) << result;
  EXPECT_NE(result.err.find("gave up"), std::string::npos) << result;
  EXPECT_EQ(state_of(id), "running");
}

TEST_F(Wait, SucceedsOnlyIfEveryTaskSucceeded)
{
  const std::string a = start({"--", "true"});
  const std::string b = start({"-c", "sleep 0.2"});
  const std::string c = start({"-c", "exit 4"});
  EXPECT_EQ(bg({"wait", a, b}).exit_code, 0);
  const Result mixed = bg({"wait", a, c, b});
  EXPECT_EQ(mixed.exit_code, 4) << mixed;
  EXPECT_EQ(mixed.out, a + " succeeded\n" + c + " failed (exit 4)\n" + b + " succeeded\n");
}

TEST_F(Wait, ReturnsWhenTheFirstTaskFinishesWithAny)
{
  const std::string slow = start({"--", "sleep", "60"});
  const std::string quick = start({"-c", "sleep 0.1; exit 5"});
  const Result result = bg({"wait", "--any", slow, quick});
  EXPECT_EQ(result.exit_code, 5) << result;
  EXPECT_EQ(state_of(slow), "running");
  EXPECT_EQ(state_of(quick), "failed");
}

TEST_F(Wait, TimesOutWithAnyWhenNoTaskFinishes)
{
  const std::string a = start({"--", "sleep", "60"});
  const std::string b = start({"--", "sleep", "60"});
  EXPECT_EQ(bg({"wait", "--any", "--timeout", "100ms", a, b}).exit_code, 4);
}

TEST_F(Wait, PrintsAJsonArrayOfTheFinalRecords)
{
  const std::string a = start({"--", "true"});
  const std::string b = start({"-c", "sleep 0.1; exit 1"});
  const Result result = bg({"wait", "--json", a, b});
  EXPECT_EQ(result.exit_code, 1) << result;
  const auto value = e2e::parse_json(result.out);
  ASSERT_TRUE(value.is_array());
  ASSERT_EQ(value.get_array().size(), 2u);
  EXPECT_EQ(value.get_array()[0].at("state"), json::value("succeeded"));
  EXPECT_EQ(value.get_array()[1].at("state"), json::value("failed"));
  EXPECT_EQ(value.get_array()[1].at("id"), json::value(b));
}

TEST_F(Wait, ReturnsAtOnceForAFinishedTask)
{
  const std::string id = start({"--", "true"});
  EXPECT_EQ(wait_for(id), 0);
  EXPECT_EQ(wait_for(id), 0);
  EXPECT_EQ(bg({"wait", "--timeout", "0s", id}).exit_code, 0);
}

TEST_F(Wait, FailsWhenTheRecordDisappearsWhileWaiting)
{
  const std::string id = start({"--", "sleep", "60"});
  e2e::Process waiter = bg_async({"wait", id});
  ASSERT_TRUE(e2e::eventually([&] { return e2e::is_blocked_in_poll(waiter.pid()); }));
  std::filesystem::remove(record_path(id));
  const Result result = waiter.finish();
  EXPECT_FALSE(result.hung) << result;
  EXPECT_EQ(result.exit_code, 8) << result; // removed
  EXPECT_NE(result.err.find(id), std::string::npos) << result;
}

TEST_F(Wait, CtrlCExits5AndLeavesTheTasksRunning)
{
  const std::string id = start({"--", "sleep", "60"});
  e2e::Process waiter = bg_async({"wait", id});
  ASSERT_TRUE(e2e::eventually([&] { return e2e::is_blocked_in_poll(waiter.pid()); }));
  ::kill(waiter.pid(), SIGINT);
  const Result result = waiter.finish();
  EXPECT_EQ(result.exit_code, 5) << result;
  EXPECT_NE(result.err.find("interrupted by SIGINT"), std::string::npos) << result;
  EXPECT_EQ(state_of(id), "running");
  EXPECT_EQ(bg({"cancel", "--grace", "100ms", id}).exit_code, 0);
}

TEST_F(Wait, TellsATaskKilledBySigintFromACancelledOne)
{
  const std::string interrupted = start({"--", "sh", "-c", "kill -INT $$"});
  const std::string cancelled = start({"--", "sleep", "60"});
  ASSERT_EQ(bg({"cancel", "--grace", "100ms", cancelled}).exit_code, 0);
  EXPECT_EQ(bg({"wait", interrupted}).exit_code, 130);
  EXPECT_EQ(bg({"wait", cancelled}).exit_code, 125);
  const Result json = bg({"wait", "--json", interrupted, cancelled});
  EXPECT_NE(json.out.find("\"wait_status\":130"), std::string::npos) << json;
  EXPECT_NE(json.out.find("\"wait_status\":125"), std::string::npos) << json;
}

TEST_F(Wait, GivesUpWithNullWaitStatusInTheJson)
{
  const std::string id = start({"--", "sleep", "60"});
  const Result result = bg({"wait", "--json", "--timeout", "100ms", id});
  EXPECT_EQ(result.exit_code, 4) << result;
  EXPECT_NE(result.out.find("\"wait_status\":null"), std::string::npos) << result;
  EXPECT_EQ(bg({"cancel", "--grace", "100ms", id}).exit_code, 0);
}
