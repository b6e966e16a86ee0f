#include <bgtask/store/task_dir.hpp>
#include <bgtask/store/task_files.hpp>
#include <bgtask/store/task_lock.hpp>
#include <bgtask/util/error.hpp>

#include <gtest/gtest.h>

#include "temp_root.hpp"
#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;

using bgtask::TaskLock;

namespace {

constexpr const char* k_id = "2nkmjr72vz87";

// Runs the file at `path` (a copy of sleep) while alive: a running
// executable cannot be opened for writing (ETXTBSY).
class RunningExecutable
{
public:
  explicit RunningExecutable(const fs::path& path)
  {
    const std::string file = path.string();
    std::string seconds = "30";
    char* argv[] = {const_cast<char*>(file.c_str()), seconds.data(), nullptr};
    if (::posix_spawn(&m_pid, file.c_str(), nullptr, nullptr, argv, environ) != 0) {
      m_pid = -1;
    }
    // posix_spawn returns once the child has exec'd (glibc uses CLONE_VFORK).
  }
  ~RunningExecutable()
  {
    if (m_pid > 0) {
      ::kill(m_pid, SIGKILL);
      ::waitpid(m_pid, nullptr, 0);
    }
  }
  RunningExecutable(const RunningExecutable&) = delete;
  RunningExecutable& operator=(const RunningExecutable&) = delete;

private:
  pid_t m_pid = -1;
};

} // namespace

class TaskLockTest : public ::testing::Test
{
protected:
  void SetUp() override { m_dir.emplace(bgtask::TaskDir::open((m_root / "tasks").string())); }

  void TearDown() override { m_dir.reset(); }

  const bgtask::TaskDir& dir() const { return *m_dir; }
  fs::path lock_path() const { return m_root / "tasks" / bgtask::lock_file_name(k_id); }

  TempRoot m_root{"lock"};

private:
  std::optional<bgtask::TaskDir> m_dir;
};

TEST_F(TaskLockTest, OpensAnExistingLockWhoseOwnershipIsHeld)
{
  auto owned = TaskLock::create_owned(dir(), k_id);
  ASSERT_TRUE(owned.has_value());
  auto other = TaskLock::open_existing(dir(), k_id);
  ASSERT_TRUE(other.has_value());
  EXPECT_FALSE(other->try_take_ownership());
}

TEST_F(TaskLockTest, IsNulloptForAMissingLock)
{
  EXPECT_FALSE(TaskLock::open_existing(dir(), k_id).has_value());
}

TEST_F(TaskLockTest, IsNulloptForASymlinkOrADirectoryUnderTheLocksName)
{
  std::ofstream(m_root / "target") << "not a lock";
  fs::create_symlink(m_root / "target", lock_path());
  EXPECT_FALSE(TaskLock::open_existing(dir(), k_id).has_value());
  fs::remove(lock_path());
  fs::create_directory(lock_path());
  EXPECT_FALSE(TaskLock::open_existing(dir(), k_id).has_value());
}

// Not being able to open a lock that exists says nothing about its owner:
// it must not pass for "no lock" (reconciliation would then judge a live
// task by a stale record and could overwrite its final record with `lost`).
TEST_F(TaskLockTest, ThrowsWhenAnExistingLockCannotBeOpened)
{
  fs::copy_file("/bin/sleep", lock_path());
  fs::permissions(lock_path(), fs::perms::owner_all, fs::perm_options::replace);
  const RunningExecutable running(lock_path());
  if (const int probe = ::open(lock_path().c_str(), O_RDWR | O_CLOEXEC); probe >= 0) {
    ::close(probe);
    GTEST_SKIP() << "this kernel lets a running executable be opened for writing";
  }
  try {
    TaskLock::open_existing(dir(), k_id);
    ADD_FAILURE() << "open_existing returned although the lock cannot be opened (ETXTBSY)";
  } catch (const bgtask::Error& error) {
    EXPECT_NE(std::string(error.what()).find(bgtask::lock_file_name(k_id)), std::string::npos)
      << error.what();
  }
}
