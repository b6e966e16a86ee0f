#include "e2e/e2e_support.hpp"
#include <csignal>

namespace json = boost::json;

using e2e::Result;
using SupervisorDeath = e2e::E2eTest;
using namespace std::chrono_literals;

namespace {

int pid_in(const json::object& record, const char* part)
{
  return static_cast<int>(record.at(part).at("pid").to_number<std::int64_t>());
}

// Kills `pid` and waits until it is no longer alive (it may stay a zombie).
void kill_and_wait(int pid)
{
  ASSERT_GT(pid, 1);
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  EXPECT_TRUE(e2e::eventually([&] { return !e2e::is_alive(pid); }));
}

json::object only_record(const Result& result)
{
  EXPECT_EQ(result.exit_code, 0) << result;
  const auto value = e2e::parse_json(result.out);
  EXPECT_TRUE(value.is_array() && value.get_array().size() == 1) << result;
  return value.is_array() && !value.get_array().empty() ? value.get_array()[0].as_object()
                                                        : json::object();
}

} // namespace

TEST_F(SupervisorDeath, LeavesARunningUnsupervisedTaskWhileTheCommandLives)
{
  const std::string id = start({"--", "sleep", "60"});
  const auto before = record(id);
  kill_and_wait(pid_in(before, "owner"));
  ASSERT_TRUE(e2e::is_alive(pid_in(before, "child")));

  const auto r = only_record(bg({"status", "--json", id}));
  EXPECT_EQ(r.at("state"), json::value("running"));
  EXPECT_EQ(r.at("unsupervised"), json::value(true));
  EXPECT_EQ(record(id).at("unsupervised"), json::value(true));
  const Result text = bg({"status", id});
  EXPECT_NE(text.out.find("running (unsupervised)"), std::string::npos) << text;
  const Result list = bg({"list"});
  EXPECT_NE(list.out.find("running*"), std::string::npos) << list;
  // Judged again, it stays the same record.
  const std::string bytes = record_bytes(id);
  EXPECT_EQ(bg({"list", "--json"}).exit_code, 0);
  EXPECT_EQ(record_bytes(id), bytes);

  kill_and_wait(pid_in(before, "child"));
  const auto lost = only_record(bg({"status", "--json", id}));
  EXPECT_EQ(lost.at("state"), json::value("lost"));
  EXPECT_EQ(lost.at("error"), json::value("supervisor died; exit status unknown"));
  EXPECT_EQ(wait_for(id), 75);
}

TEST_F(SupervisorDeath, MakesTheTaskLostWhenTheCommandDiesToo)
{
  const std::string id = start({"--", "sleep", "60"});
  const auto before = record(id);
  kill_and_wait(pid_in(before, "owner"));
  kill_and_wait(pid_in(before, "child"));
  const Result list = bg({"list", "--json"});
  ASSERT_EQ(list.exit_code, 0) << list;
  const auto r = record(id);
  EXPECT_EQ(r.at("state"), json::value("lost"));
  EXPECT_EQ(r.at("error"), json::value("supervisor died; exit status unknown"));
  EXPECT_TRUE(r.at("finished_at").is_string());
  EXPECT_TRUE(r.at("exit_code").is_null());
  EXPECT_EQ(wait_for(id), 75);
  const Result status = bg({"status", id});
  EXPECT_EQ(status.exit_code, 0) << status;
  EXPECT_NE(status.out.find("supervisor died; exit status unknown"), std::string::npos) << status;
}

TEST_F(SupervisorDeath, EndsAWaitWithLost)
{
  const std::string id = start({"--", "sleep", "60"});
  const auto before = record(id);
  e2e::Process waiter = bg_async({"wait", id});
  ASSERT_TRUE(e2e::eventually([&] { return e2e::is_blocked_in_poll(waiter.pid()); }));
  kill_and_wait(pid_in(before, "owner"));
  kill_and_wait(pid_in(before, "child"));
  const Result result = waiter.finish();
  EXPECT_FALSE(result.hung) << result;
  EXPECT_EQ(result.exit_code, 75) << result;
  EXPECT_EQ(state_of(id), "lost");
}

TEST_F(SupervisorDeath, KeepsAWaitGoingUntilAnUnsupervisedCommandEnds)
{
  const std::string id = start({"--", "sleep", "60"});
  const auto before = record(id);
  e2e::Process waiter = bg_async({"wait", id});
  ASSERT_TRUE(e2e::eventually([&] { return e2e::is_blocked_in_poll(waiter.pid()); }));
  kill_and_wait(pid_in(before, "owner"));
  EXPECT_TRUE(e2e::eventually([&] { return record(id).at("unsupervised") == json::value(true); }));
  EXPECT_EQ(state_of(id), "running");
  kill_and_wait(pid_in(before, "child"));
  const Result result = waiter.finish();
  EXPECT_FALSE(result.hung) << result;
  EXPECT_EQ(result.exit_code, 75) << result;
}

TEST_F(SupervisorDeath, LetsCancelStopAnUnsupervisedCommand)
{
  const std::string id = start({"--", "sleep", "60"});
  const auto before = record(id);
  kill_and_wait(pid_in(before, "owner"));
  EXPECT_EQ(bg({"status", "--json", id}).exit_code, 0);
  EXPECT_EQ(record(id).at("unsupervised"), json::value(true));
  const Result result = bg({"cancel", "--grace", "500ms", id});
  EXPECT_EQ(result.exit_code, 0) << result;
  EXPECT_EQ(state_of(id), "cancelled");
  EXPECT_FALSE(e2e::is_alive(pid_in(before, "child")));
  EXPECT_EQ(wait_for(id), 125);
}

TEST_F(SupervisorDeath, NeverTouchesAFinalRecord)
{
  const std::string id = start({"--", "true"});
  EXPECT_EQ(wait_for(id), 0);
  const std::string bytes = record_bytes(id);
  EXPECT_EQ(bg({"list"}).exit_code, 0);
  EXPECT_EQ(bg({"status", id}).exit_code, 0);
  EXPECT_EQ(bg({"wait", id}).exit_code, 0);
  EXPECT_EQ(record_bytes(id), bytes);
}

TEST_F(SupervisorDeath, EndsAnOutputFollowWithLost)
{
  const std::string id = start({"-c", "echo hi; exec sleep 60"});
  const auto before = record(id);
  e2e::Process follow = bg_async({"output", "--follow", id});
  ASSERT_TRUE(follow.wait_for_stdout("hi\n"));
  kill_and_wait(pid_in(before, "owner"));
  kill_and_wait(pid_in(before, "child"));
  const Result result = follow.finish();
  EXPECT_FALSE(result.hung) << result;
  EXPECT_EQ(result.exit_code, 75) << result;
  EXPECT_EQ(result.out, "hi\n");
}

TEST_F(SupervisorDeath, CountsAnyProcessOfTheTaskAsTheCommandStillRunning)
{
  // The shell dies, but what it started lives on in the task's group.
  const std::string id = start({"-c", "sleep 60 & sleep 60 & echo started; wait"});
  ASSERT_TRUE(wait_for_output(id, "started"));
  const auto before = record(id);
  kill_and_wait(pid_in(before, "owner"));
  kill_and_wait(pid_in(before, "child"));
  const auto r = only_record(bg({"status", "--json", id}));
  EXPECT_EQ(r.at("state"), json::value("running"));
  EXPECT_EQ(r.at("unsupervised"), json::value(true));
  EXPECT_EQ(bg({"cancel", "--grace", "500ms", id}).exit_code, 0);
  EXPECT_EQ(state_of(id), "cancelled");
  EXPECT_TRUE(
    e2e::eventually([&] { return e2e::processes_with_environment("BGTASK_ID=" + id).empty(); }));
}
