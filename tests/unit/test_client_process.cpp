#include <bgtask/proc/client_process.hpp>

#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <unistd.h>

using bgtask::ClientCall;
using bgtask::ClientEnd;

namespace {

// True once `pid` is gone or a zombie (dead, only not yet reaped by whoever
// adopted it).
bool dead(pid_t pid)
{
  if (::kill(pid, 0) != 0 && errno == ESRCH) {
    return true;
  }
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  std::getline(stat, text);
  const auto close = text.rfind(')');
  return close != std::string::npos && close + 2 < text.size() && text[close + 2] == 'Z';
}

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
  // The shell's child (sleep) must die with it: it once outlived the call.
  char pid_file[] = "/tmp/bgtask-client-child.XXXXXX";
  const int fd = ::mkstemp(pid_file);
  ASSERT_GE(fd, 0);
  ::close(fd);
  auto call =
    shell(std::string("exec >/dev/null 2>&1; sleep 30 & echo $! >") + pid_file + "; wait");
  call.timeout = std::chrono::milliseconds(200);
  EXPECT_EQ(bgtask::run_client(call).end, ClientEnd::timed_out);
  std::ifstream in(pid_file);
  pid_t child = 0;
  in >> child;
  ::unlink(pid_file);
  ASSERT_GT(child, 0) << "the shell did not say its child's pid";
  // Killed at once; gone once its new parent has reaped it.
  bool gone = false;
  for (int i = 0; i < 200 && !gone; ++i) {
    gone = dead(child);
    if (!gone) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  if (!gone) {
    ::kill(child, SIGKILL);
  }
  EXPECT_TRUE(gone) << "the client's child " << child << " outlived the deadline";
}

TEST(ClientProcess, SaysWhenTheProgramCannotRun)
{
  ClientCall call;
  call.argv = {"bgtask-no-such-program"};
  const auto result = bgtask::run_client(call);
  EXPECT_EQ(result.end, ClientEnd::not_started);
  EXPECT_NE(result.error.find("bgtask-no-such-program"), std::string::npos);
}
