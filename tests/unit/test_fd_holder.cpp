#include <bgtask/proc/fd_holder.hpp>

#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <cstddef>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <set>
#include <string>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;

// How a tester process ends.
enum : int {
  k_only_held = 0,
  k_others_open = 1,
  k_no_holder = 2,
  k_setup_failed = 3,
};

// The descriptors process `pid` has open.
std::set<int> open_descriptors(pid_t pid)
{
  std::set<int> fds;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec)) {
    fds.insert(std::stoi(entry.path().filename().string()));
  }
  return fds;
}

// The first child of this process, or -1.
pid_t first_child()
{
  std::ifstream children("/proc/self/task/" + std::to_string(::getpid()) + "/children");
  pid_t pid = -1;
  children >> pid;
  return children ? pid : -1;
}

// Makes close_range fail with ENOSYS in this process and its children, as on
// a kernel before 5.9 or under a container's seccomp filter.
bool deny_close_range()
{
#ifdef __NR_close_range
  sock_filter filter[] = {
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_close_range, 0, 1),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  sock_fprog program{static_cast<unsigned short>(sizeof(filter) / sizeof(filter[0])), filter};
  return ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
         ::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) == 0 &&
         ::syscall(__NR_close_range, 1000, 1001, 0) != 0 && errno == ENOSYS;
#else
  return false;
#endif
}

// In a forked tester: holds a descriptor with hold_until_exit while others
// are open (stdin/stdout/stderr and one more), and reports whether the
// holder ends up with the held one only.
[[noreturn]] void run_tester(bool without_close_range)
{
  if (without_close_range && !deny_close_range()) {
    ::_exit(k_setup_failed);
  }
  const int held = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  const int other = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (held < 0 || other < 0) {
    ::_exit(k_setup_failed);
  }
  bgtask::hold_until_exit(held);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline) {
    const pid_t holder = first_child();
    if (holder > 0 && open_descriptors(holder) == std::set<int>{held}) {
      ::_exit(k_only_held);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::_exit(first_child() > 0 ? k_others_open : k_no_holder);
}

int tester_status(bool without_close_range)
{
  const pid_t tester = ::fork();
  if (tester == 0) {
    run_tester(without_close_range);
  }
  int status = 0;
  if (tester < 0 || ::waitpid(tester, &status, 0) != tester || !WIFEXITED(status)) {
    return -1;
  }
  return WEXITSTATUS(status);
}

} // namespace

TEST(FdHolder, KeepsOnlyTheHeldDescriptor)
{
  EXPECT_EQ(tester_status(false), k_only_held);
}

TEST(FdHolder, KeepsOnlyTheHeldDescriptorWhereCloseRangeFails)
{
  const int status = tester_status(true);
  if (status == k_setup_failed) {
    GTEST_SKIP() << "cannot make close_range fail here (no seccomp filter)";
  }
  EXPECT_EQ(status, k_only_held) << "1: the holder kept other descriptors; 2: no holder";
}
