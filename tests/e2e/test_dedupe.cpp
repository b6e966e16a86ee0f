#include "e2e/e2e_support.hpp"
#include <algorithm>

using e2e::Result;
using Dedupe = e2e::E2eTest;
using MaxRunning = e2e::E2eTest;
using namespace std::chrono_literals;

namespace {

std::size_t count_records(const std::vector<std::string>& entries)
{
  return static_cast<std::size_t>(
    std::count_if(entries.begin(), entries.end(), [](const std::string& name) {
      return name.size() > 12 && name.substr(12) == ".status.json";
    }));
}

e2e::RunOptions env_max_running(const std::string& value)
{
  e2e::RunOptions options;
  options.env = {"BGTASK_MAX_RUNNING=" + value};
  return options;
}

} // namespace

TEST_F(Dedupe, TenConcurrentIdenticalStartsYieldOneTask)
{
  std::vector<e2e::Process> starts;
  for (int i = 0; i < 10; ++i) {
    starts.push_back(bg_async({"start", "--dedupe", "--", "sleep", "60"}));
  }
  std::vector<std::string> ids;
  for (auto& process : starts) {
    const Result result = process.finish();
    ASSERT_EQ(result.exit_code, 0) << result;
    ids.push_back(result.line());
  }
  EXPECT_TRUE(
    std::all_of(ids.begin(), ids.end(), [&](const std::string& id) { return id == ids.front(); }))
    << ::testing::PrintToString(ids);
  EXPECT_EQ(count_records(dir_entries()), 1U);
  EXPECT_EQ(state_of(ids.front()), "running");
}

TEST_F(Dedupe, ComparesCommandCwdEnvValuesAndTimeout)
{
  const std::string base = start({"--dedupe", "--env", "TOKEN=s3cret-value", "--", "sleep", "60"});
  EXPECT_EQ(
    start({"--dedupe", "--env", "TOKEN=s3cret-value", "--name", "other", "--", "sleep", "60"}),
    base);
  EXPECT_NE(start({"--dedupe", "--env", "TOKEN=another", "--", "sleep", "60"}), base);
  EXPECT_NE(
    start({"--dedupe", "--env", "TOKEN=s3cret-value", "--timeout", "1h", "--", "sleep", "60"}),
    base);
  EXPECT_NE(start({"--dedupe", "--env", "TOKEN=s3cret-value", "--cwd", "/", "--", "sleep", "60"}),
            base);
  EXPECT_NE(start({"--dedupe", "--env", "TOKEN=s3cret-value", "--", "sleep", "61"}), base);
  // Only a keyed hash is stored, never the value.
  EXPECT_EQ(record_bytes(base).find("s3cret-value"), std::string::npos);
  EXPECT_EQ(record(base).at("fingerprint").as_string().size(), 64U);
}

TEST_F(Dedupe, AFinishedTaskIsNoDuplicate)
{
  const std::string first = start({"--dedupe", "--", "true"});
  EXPECT_EQ(wait_for(first), 0);
  const std::string second = start({"--dedupe", "--", "true"});
  EXPECT_NE(second, first);
}

TEST_F(Dedupe, RunFollowsTheIdenticalTask)
{
  const std::string id = start({"--dedupe", "-c", "echo once; sleep 0.3"});
  const Result result = bg({"run", "--dedupe", "-c", "echo once; sleep 0.3"});
  EXPECT_EQ(result.exit_code, 0) << result;
  EXPECT_EQ(result.out, "once\n");
  EXPECT_NE(result.err.find(id), std::string::npos) << result;
  EXPECT_EQ(count_records(dir_entries()), 1U);
}

TEST_F(MaxRunning, RefusesOnceTheLimitIsReached)
{
  start({"--", "sleep", "60"});
  start({"--", "sleep", "60"});
  const Result refused = bg({"start", "--max-running", "2", "--", "true"});
  EXPECT_EQ(refused.exit_code, 69) << refused;
  EXPECT_EQ(refused.out, "");
  EXPECT_NE(refused.err.find("limit is 2"), std::string::npos) << refused;
  const Result by_env = bg({"start", "--", "true"}, env_max_running("2"));
  EXPECT_EQ(by_env.exit_code, 69) << by_env;
  EXPECT_EQ(count_records(dir_entries()), 2U);
  const Result allowed = bg({"start", "--max-running", "3", "--", "true"}, env_max_running("2"));
  EXPECT_EQ(allowed.exit_code, 0) << allowed;
  EXPECT_EQ(bg({"start", "--", "true"}, env_max_running("zero")).exit_code, 2);
}

TEST_F(MaxRunning, CountsOnlyRunningTasks)
{
  const std::string done = start({"--", "true"});
  EXPECT_EQ(wait_for(done), 0);
  ASSERT_EQ(bg({"queue", "paused", "--slots", "0"}).exit_code, 0);
  start({"--queue", "paused", "--", "true"});
  const Result allowed = bg({"start", "--max-running", "1", "--", "true"});
  EXPECT_EQ(allowed.exit_code, 0) << allowed;
}

TEST_F(Dedupe, FindingTheRunningTaskPrintsItsIdAndNothingOnStderr)
{
  const std::string id = start({"--dedupe", "--", "sleep", "60"});
  const Result again = bg({"start", "--dedupe", "--", "sleep", "60"});
  EXPECT_EQ(again.exit_code, 0) << again;
  EXPECT_EQ(again.out, id + "\n");
  EXPECT_EQ(again.err, "");
  EXPECT_EQ(bg({"cancel", "--grace", "100ms", id}).exit_code, 0);
}
