#include <bgtask/proc/memory_sharing_child.hpp>
#include <bgtask/proc/raw_syscall.hpp>

#include <gtest/gtest.h>

#include <cerrno>
#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

int wait_status(pid_t pid)
{
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

TEST(RawSyscall, ReturnsTheNegatedErrorAndLeavesErrnoAlone)
{
  errno = EDOM;
  EXPECT_EQ(bgtask::raw::syscall(SYS_close, -1), -EBADF);
  EXPECT_EQ(errno, EDOM);
  EXPECT_EQ(bgtask::raw::syscall(SYS_getpid), ::getpid());
  EXPECT_EQ(bgtask::raw::dup2(-1, 7), -EBADF);
  EXPECT_EQ(bgtask::raw::dup2(2, 2), 2);
  EXPECT_EQ(errno, EDOM);
}

TEST(MemorySharingChild, ExitsWithWhatItsMainReturns)
{
  const bgtask::MemorySharingChild child([](void*) -> int { return 7; }, nullptr);
  const int status = wait_status(child.pid());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 7);
}

// What the command's process relies on: its failed calls (the PATH search
// fails on every entry but one) do not change the supervisor's errno.
TEST(MemorySharingChild, LeavesItsParentsErrnoAlone)
{
  errno = EDOM;
  const bgtask::MemorySharingChild child(
    [](void*) -> int {
      for (int i = 0; i < 1000; ++i) {
        if (bgtask::raw::syscall(SYS_faccessat, AT_FDCWD, "/nonexistent/bgtask", X_OK) != -ENOENT) {
          return 1;
        }
      }
      return 0;
    },
    nullptr);
  const int status = wait_status(child.pid());
  EXPECT_EQ(errno, EDOM);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(MemorySharingChild, ReadsWhatItsParentPreparedAndExecs)
{
  char program[] = "/bin/sh";
  char flag[] = "-c";
  char script[] = "exit 5";
  char* const argv[] = {program, flag, script, nullptr};
  const bgtask::MemorySharingChild child(
    [](void* argument) -> int {
      auto* const* args = static_cast<char* const*>(argument);
      char* const env[] = {nullptr};
      bgtask::raw::syscall(SYS_execve, args[0], args, env);
      return 127;
    },
    const_cast<char**>(argv));
  const int status = wait_status(child.pid());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 5);
}

} // namespace
