// TaskWatcher notices at once when the process it should watch is already
// gone as the watch starts (nothing would wake it but the safety poll).

#include <bgtask/exec/task_watcher.hpp>
#include <bgtask/store/task_dir.hpp>

#include <gtest/gtest.h>

#include "temp_root.hpp"
#include <chrono>
#include <memory>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

TEST(TaskWatcher, ReturnsSoonWhenTheWatchedProcessIsAlreadyGone)
{
  const TempRoot root("task-watcher");
  const auto dir = bgtask::TaskDir::open(root.path().string());
  const pid_t gone = ::fork();
  ASSERT_GE(gone, 0);
  if (gone == 0) {
    ::_exit(0);
  }
  ASSERT_EQ(::waitpid(gone, nullptr, 0), gone);
  bgtask::TaskRecord record;
  record.id = "01hx2k3m4n5c";
  record.state = bgtask::TaskState::running;
  record.owner = bgtask::OwnerIdentity{gone, "00112233445566778899aabbccddeeff", 1, "boot", "host"};
  // inotify can be out of reach for a while on a shared machine: root's
  // instances count against one limit, and test_crash_wait sets it to 0.
  auto watcher = std::make_unique<bgtask::TaskWatcher>(dir, bgtask::WatchOutput::no);
  for (int tries = 0; !watcher->event_driven() && tries < 300; ++tries) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    watcher = std::make_unique<bgtask::TaskWatcher>(dir, bgtask::WatchOutput::no);
  }
  ASSERT_TRUE(watcher->event_driven()) << "no inotify here, even after 30 s";
  const auto start = std::chrono::steady_clock::now();
  watcher->wait_for_change({record}, bgtask::Milliseconds(20000));
  const auto waited = std::chrono::steady_clock::now() - start;
  // The safety poll is 5 s; "at once" is a 50 ms poll. The bound is generous.
  EXPECT_LT(waited, std::chrono::milliseconds(2500));
}
