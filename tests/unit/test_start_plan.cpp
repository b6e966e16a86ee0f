// StartOptions checked into a plan: the shared rules, each executor's own
// (Executor::check), the defaults from the environment, and rerun.

#include <bgtask/exec/start_plan.hpp>
#include <bgtask/util/error.hpp>

#include <gtest/gtest.h>

#include <cstdlib>

using bgtask::StartOptions;

namespace {

class StartPlanTest : public ::testing::Test
{
protected:
  void SetUp() override { clear(); }
  void TearDown() override { clear(); }

  static void clear()
  {
    for (const char* name : {"BGTASK_EXECUTOR", "BGTASK_MAX_OUTPUT", "BGTASK_MAX_RUNNING"}) {
      ::unsetenv(name);
    }
  }
};

StartOptions command(std::vector<std::string> argv)
{
  StartOptions options;
  options.command = std::move(argv);
  options.cwd = "/";
  return options;
}

// The usage message plan_start refuses `options` with, or "" if it plans them.
std::string refusal(const StartOptions& options)
{
  try {
    static_cast<void>(bgtask::plan_start(options));
    return "";
  } catch (const bgtask::Error& e) {
    EXPECT_EQ(e.code(), bgtask::ExitCode::usage) << e.what();
    return e.what();
  }
}

} // namespace

TEST_F(StartPlanTest, PlansALocalTaskWithTheDefaults)
{
  const auto plan = bgtask::plan_start(command({"sleep", "1"}));
  EXPECT_EQ(plan.request.record.executor, "local");
  EXPECT_EQ(plan.request.argv, (std::vector<std::string>{"sleep", "1"}));
  EXPECT_EQ(plan.request.max_output, bgtask::k_default_max_output);
  EXPECT_EQ(plan.request.record.options.max_output, bgtask::k_default_max_output);
  EXPECT_FALSE(plan.max_running);
}

TEST_F(StartPlanTest, TakesDefaultsFromTheEnvironment)
{
  ::setenv("BGTASK_MAX_OUTPUT", "none", 1);
  ::setenv("BGTASK_MAX_RUNNING", "3", 1);
  const auto plan = bgtask::plan_start(command({"true"}));
  EXPECT_FALSE(plan.request.max_output);
  EXPECT_EQ(plan.max_running, 3u);
  ::setenv("BGTASK_EXECUTOR", "nowhere", 1);
  EXPECT_NE(refusal(command({"true"})).find("BGTASK_EXECUTOR"), std::string::npos);
}

TEST_F(StartPlanTest, TheLocalExecutorRefusesSlurmOptions)
{
  auto options = command({"true"});
  options.slurm.partition = "debug";
  EXPECT_NE(refusal(options).find("need --executor slurm"), std::string::npos);
  options.slurm.partition.reset();
  options.slurm.array = bgtask::SlurmArraySpec{{1, 2}, std::nullopt};
  EXPECT_EQ(refusal(options), ""); // a task per index, here too
  options.slurm.array->limit = 1;
  EXPECT_NE(refusal(options).find("--array's %N needs --executor slurm"), std::string::npos);
}

TEST_F(StartPlanTest, TheSlurmExecutorRefusesWhatOnlyASupervisorDoes)
{
  auto options = command({"true"});
  options.executor = "slurm";
  EXPECT_EQ(refusal(options), "");
  options.queue = "q";
  EXPECT_NE(refusal(options).find("need the local executor"), std::string::npos);
  options.queue.reset();
  options.max_output = std::optional<std::uint64_t>(1024);
  EXPECT_NE(refusal(options).find("need the local executor"), std::string::npos);
  options.max_output = std::optional<std::uint64_t>(); // `none`: a job's output is never capped
  EXPECT_EQ(refusal(options), "");
  options.slurm.args = {"--output=/tmp/x"};
  EXPECT_NE(refusal(options).find("bgtask sets --output itself"), std::string::npos);
  options.slurm.args.clear();
  options.command = {"-x"};
  EXPECT_NE(refusal(options).find("starting with '-'"), std::string::npos);
}

TEST_F(StartPlanTest, ChecksTheOptionsAgainstEachOther)
{
  auto options = command({"true"});
  options.shell = "true";
  EXPECT_NE(refusal(options).find("not both"), std::string::npos);
  options = command({"true"});
  options.slots = 2;
  EXPECT_EQ(refusal(options), "--slots needs --queue");
  options = command({"true"});
  options.env = {"1BAD=x"};
  EXPECT_NE(refusal(options).find("invalid --env"), std::string::npos);
  options = command({"true"});
  options.after = {","};
  EXPECT_EQ(refusal(options), "--after needs at least one task ID");
}

TEST_F(StartPlanTest, RerunPlansTheSameTaskAgain)
{
  auto first = command({});
  first.shell = "echo hi";
  first.name = "greet";
  first.timeout = bgtask::Milliseconds(1500);
  first.max_output = std::optional<std::uint64_t>();
  first.env = {"A=1"};
  const auto original = bgtask::plan_start(first).request.record;
  auto record = original;
  record.id = "01hx2k3m4n5p";
  const auto again = bgtask::plan_start(bgtask::options_to_rerun(record, {"A=2"})).request;
  EXPECT_EQ(again.record.command, original.command);
  EXPECT_TRUE(again.record.shell);
  EXPECT_EQ(again.record.name, original.name);
  EXPECT_EQ(again.record.timeout_s, original.timeout_s);
  EXPECT_FALSE(again.max_output);
  EXPECT_EQ(again.record.rerun_of, "01hx2k3m4n5p");
  EXPECT_EQ(again.env_additions, (std::vector<std::string>{"A=2"}));
}
