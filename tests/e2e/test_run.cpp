#include "e2e/e2e_support.hpp"
#include <csignal>

using e2e::Result;
using RunCommand = e2e::E2eTest;
using namespace std::chrono_literals;

TEST_F(RunCommand, StreamsTheOutputAndExitsWithTheTaskStatus)
{
  const Result result = bg({"run", "--", "sh", "-c", "echo one; echo two >&2; exit 3"});
  EXPECT_EQ(result.exit_code, 3) << result;
  EXPECT_EQ(result.out, "one\ntwo\n");
  const auto ids = dir_entries();
  ASSERT_FALSE(ids.empty());
  const std::string id = ids.front().substr(0, 12);
  EXPECT_EQ(state_of(id), "failed");
}

TEST_F(RunCommand, ExitsZeroForASuccessAndTakesStartOptions)
{
  const Result result =
    bg({"run", "--name", "inline", "--env", "GREETING=hi", "-c", "echo $GREETING"});
  EXPECT_EQ(result.exit_code, 0) << result;
  EXPECT_EQ(result.out, "hi\n");
  const Result list = bg({"list", "--name", "inline"});
  EXPECT_NE(list.out.find("succeeded"), std::string::npos) << list;
}

TEST_F(RunCommand, DetachesWhenTheTaskOutlivesDetachAfter)
{
  const Result result = bg({"run", "--detach-after", "300ms", "--", "sleep", "60"});
  EXPECT_EQ(result.exit_code, 3) << result;
  const auto entries = dir_entries();
  ASSERT_FALSE(entries.empty());
  const std::string id = entries.front().substr(0, 12);
  EXPECT_NE(result.err.find(id), std::string::npos) << result;
  EXPECT_NE(result.err.find("output --follow " + id), std::string::npos) << result;
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(state_of(id), "running");
  EXPECT_EQ(bg({"cancel", "--grace", "100ms", id}).exit_code, 0);
}

TEST_F(RunCommand, CtrlCCancelsTheTaskAndExits130)
{
  auto running = bg_async({"run", "--grace", "200ms", "--", "sh", "-c", "echo started; sleep 60"});
  ASSERT_TRUE(running.wait_for_stdout("started"));
  ::kill(running.pid(), SIGINT);
  const Result result = running.finish();
  EXPECT_EQ(result.exit_code, 130) << result;
  const std::string id = dir_entries().front().substr(0, 12);
  EXPECT_EQ(state_of(id), "cancelled");
  EXPECT_NE(result.err.find("cancelling task " + id), std::string::npos) << result;
}

TEST_F(RunCommand, SigquitDetachesAndLeavesTheTaskRunning)
{
  auto running = bg_async({"run", "--", "sh", "-c", "echo started; sleep 60"});
  ASSERT_TRUE(running.wait_for_stdout("started"));
  ::kill(running.pid(), SIGQUIT);
  const Result result = running.finish();
  EXPECT_EQ(result.exit_code, 3) << result;
  const std::string id = dir_entries().front().substr(0, 12);
  EXPECT_EQ(state_of(id), "running");
  EXPECT_EQ(bg({"cancel", "--grace", "100ms", id}).exit_code, 0);
}

TEST_F(RunCommand, DetachesAfterTheTimeTheEnvironmentGives)
{
  e2e::RunOptions options;
  options.env = {"BGTASK_DETACH_AFTER=300ms"};
  const Result result = bg({"run", "--", "sleep", "60"}, options);
  EXPECT_EQ(result.exit_code, 3) << result;
  const std::string id = dir_entries().front().substr(0, 12);
  EXPECT_EQ(bg({"cancel", "--grace", "100ms", id}).exit_code, 0);
}

// Without a terminal (CI, a script) `run` never detaches by default: the
// task runs longer than the 30s a terminal gets, and `run` follows it to
// the end (exit 0 and "done", not exit 3).
TEST_F(RunCommand, FollowsToTheEndWithoutATerminal)
{
  const Result result = bg({"run", "-c", "echo started; sleep 32; echo done"});
  EXPECT_EQ(result.exit_code, 0) << result;
  EXPECT_EQ(result.out, "started\ndone\n");
  EXPECT_EQ(result.err.find("detached"), std::string::npos) << result;
}

TEST_F(RunCommand, PassesControlCharactersThroughUnlessAskedToEscape)
{
  const Result raw = bg({"run", "-c", "printf '50%%\\r100%%\\033[32mok\\033[0m\\n'"});
  EXPECT_EQ(raw.exit_code, 0) << raw;
  EXPECT_EQ(raw.out, "50%\r100%\x1b[32mok\x1b[0m\n");
}

TEST_F(RunCommand, ReportsACommandThatCannotStart)
{
  const Result result = bg({"run", "--", "/nonexistent/command"});
  EXPECT_EQ(result.exit_code, 127) << result;
  EXPECT_NE(result.err.find("failed to start"), std::string::npos) << result;
}
