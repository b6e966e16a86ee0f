#include <bgtask/proc/client_process.hpp>

#include <gtest/gtest.h>

using bgtask::ClientCall;
using bgtask::ClientEnd;

namespace {

ClientCall shell(std::string script)
{
  ClientCall call;
  call.argv = {"/bin/sh", "-c", std::move(script)};
  call.timeout = std::chrono::seconds(20);
  return call;
}

} // namespace

TEST(ClientProcess, CapturesOutputAndExitCode)
{
  const auto result = bgtask::run_client(shell("echo out; echo err >&2; exit 4"));
  ASSERT_EQ(result.end, ClientEnd::exited);
  EXPECT_EQ(result.exit_code, 4);
  EXPECT_EQ(result.out, "out\n");
  EXPECT_EQ(result.err, "err\n");
  EXPECT_EQ(bgtask::client_message(result), "err");
}

TEST(ClientProcess, ReportsASignalAs128Plus)
{
  const auto result = bgtask::run_client(shell("kill -KILL $$"));
  ASSERT_EQ(result.end, ClientEnd::exited);
  EXPECT_EQ(result.exit_code, 128 + 9);
}

TEST(ClientProcess, FeedsStdinAndAddsEnvironment)
{
  auto call = shell("cat; echo \"$BGTASK_TEST_VALUE\"");
  call.input = std::string(200000, 'x');
  call.env_additions = {"BGTASK_TEST_VALUE=v=1"};
  const auto result = bgtask::run_client(call);
  ASSERT_EQ(result.end, ClientEnd::exited);
  EXPECT_EQ(result.out, std::string(200000, 'x') + "v=1\n");
}

TEST(ClientProcess, SurvivesAClientThatIgnoresItsInput)
{
  auto call = shell("exit 0");
  call.input = std::string(1 << 20, 'x');
  const auto result = bgtask::run_client(call);
  ASSERT_EQ(result.end, ClientEnd::exited);
  EXPECT_EQ(result.exit_code, 0);
}

TEST(ClientProcess, KillsAClientThatOutlivesItsDeadline)
{
  auto call = shell("exec sleep 30");
  call.timeout = std::chrono::milliseconds(200);
  const auto result = bgtask::run_client(call);
  EXPECT_EQ(result.end, ClientEnd::timed_out);
  EXPECT_NE(bgtask::client_message(result).find("did not answer within"), std::string::npos);
}

TEST(ClientProcess, KillsAClientThatClosesItsOutputButGoesOn)
{
  auto call = shell("exec >/dev/null 2>&1; sleep 30");
  call.timeout = std::chrono::milliseconds(200);
  EXPECT_EQ(bgtask::run_client(call).end, ClientEnd::timed_out);
}

TEST(ClientProcess, SaysWhenTheProgramCannotRun)
{
  ClientCall call;
  call.argv = {"bgtask-no-such-program"};
  const auto result = bgtask::run_client(call);
  EXPECT_EQ(result.end, ClientEnd::not_started);
  EXPECT_NE(result.error.find("bgtask-no-such-program"), std::string::npos);
}
