#include "e2e/e2e_support.hpp"
#include <csignal>
#include <fstream>

namespace json = boost::json;

using e2e::Result;
using OnExit = e2e::E2eTest;
using namespace std::chrono_literals;

namespace {

std::string read_file(const std::filesystem::path& path)
{
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The message of the task's `on_exit` event, or "" while there is none.
std::string on_exit_message(const json::object& record)
{
  for (const auto& event : record.at("events").as_array()) {
    if (event.at("kind") == json::value("on_exit")) {
      return std::string(event.at("message").as_string());
    }
  }
  return "";
}

} // namespace

TEST_F(OnExit, RunsOnceWithTheOutcomeInItsEnvironment)
{
  const auto hook_output = work() / "hook";
  const std::string id =
    start({"--name", "nightly", "--on-exit",
           "echo \"$BGTASK_ID $BGTASK_NAME $BGTASK_STATE $BGTASK_EXIT_CODE\" >> '" +
             hook_output.string() + "'",
           "-c", "exit 4"});
  EXPECT_EQ(wait_for(id), 4);
  ASSERT_TRUE(e2e::eventually([&] { return !on_exit_message(record(id)).empty(); }));
  EXPECT_EQ(on_exit_message(record(id)), "exit 0");
  EXPECT_EQ(read_file(hook_output), id + " nightly failed 4\n");
}

TEST_F(OnExit, AFailingHookIsRecordedAndLeavesTheStateAlone)
{
  const std::string id = start({"--on-exit", "echo broken webhook >&2; exit 7", "--", "true"});
  EXPECT_EQ(wait_for(id), 0);
  ASSERT_TRUE(e2e::eventually([&] { return !on_exit_message(record(id)).empty(); }));
  EXPECT_EQ(on_exit_message(record(id)), "failed: exit 7: broken webhook");
  EXPECT_EQ(state_of(id), "succeeded");
  EXPECT_EQ(output_of(id), "");
}

TEST_F(OnExit, RunsForATaskThatNeverRan)
{
  const auto hook_output = work() / "hook";
  const std::string failing = start({"-c", "exit 1"});
  const std::string id = start(
    {"--after", failing, "--on-exit",
     "echo \"$BGTASK_STATE $BGTASK_EXIT_CODE\" > '" + hook_output.string() + "'", "--", "true"});
  EXPECT_EQ(wait_for(id), 1);
  ASSERT_TRUE(e2e::eventually([&] { return !on_exit_message(record(id)).empty(); }));
  EXPECT_EQ(read_file(hook_output), "failed 1\n");
}

TEST_F(OnExit, RunsWithTheSignalOfAKilledCommand)
{
  const auto hook_output = work() / "hook";
  const std::string id =
    start({"--on-exit", "echo \"$BGTASK_STATE $BGTASK_EXIT_CODE\" > '" + hook_output.string() + "'",
           "--", "sleep", "60"});
  const auto child = record(id).at("child").at("pid").to_number<int>();
  ASSERT_EQ(::kill(child, SIGKILL), 0);
  EXPECT_EQ(wait_for(id), 128 + SIGKILL);
  ASSERT_TRUE(e2e::eventually([&] { return !on_exit_message(record(id)).empty(); }));
  EXPECT_EQ(read_file(hook_output), "failed 137\n");
}

TEST_F(OnExit, NeverRunsForATaskWhoseSupervisorWasKilled)
{
  const auto hook_output = work() / "hook";
  const std::string id =
    start({"--on-exit", "echo ran > '" + hook_output.string() + "'", "--", "sleep", "60"});
  const auto before = record(id);
  const auto supervisor = before.at("owner").at("pid").to_number<int>();
  ASSERT_EQ(::kill(supervisor, SIGKILL), 0);
  ASSERT_TRUE(e2e::eventually([&] { return !e2e::is_alive(supervisor); }));
  ASSERT_EQ(::kill(before.at("child").at("pid").to_number<int>(), SIGKILL), 0);
  EXPECT_EQ(wait_for(id), 75); // lost
  std::this_thread::sleep_for(500ms);
  EXPECT_FALSE(std::filesystem::exists(hook_output));
  EXPECT_EQ(on_exit_message(record(id)), "");
}
