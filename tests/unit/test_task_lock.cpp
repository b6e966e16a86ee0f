#include <bgtask/error.hpp>
#include <bgtask/task_dir.hpp>
#include <bgtask/task_files.hpp>
#include <bgtask/task_lock.hpp>

#include "temp_root.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sys/resource.h>
#include <unistd.h>

namespace fs = std::filesystem;

using bgtask::TaskLock;

namespace {

constexpr const char* k_id = "2nkmjr72vz87";

// While alive, no new descriptor can be opened (EMFILE): the soft limit
// on descriptors is the lowest free one.
class DescriptorsExhausted
{
public:
  DescriptorsExhausted()
  {
    ::getrlimit(RLIMIT_NOFILE, &m_saved);
    const int lowest_free = ::dup(0);
    ::close(lowest_free);
    rlimit lowered = m_saved;
    lowered.rlim_cur = static_cast<rlim_t>(lowest_free);
    ::setrlimit(RLIMIT_NOFILE, &lowered);
  }
  ~DescriptorsExhausted() { ::setrlimit(RLIMIT_NOFILE, &m_saved); }
  DescriptorsExhausted(const DescriptorsExhausted&) = delete;
  DescriptorsExhausted& operator=(const DescriptorsExhausted&) = delete;

private:
  rlimit m_saved{};
};

} // namespace

class TaskLockTest : public ::testing::Test
{
protected:
  void SetUp() override
  {
    m_dir.emplace(bgtask::TaskDir::open((m_root / "tasks").string()));
  }

  void TearDown() override
  {
    m_dir.reset();
  }

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
  auto owned = TaskLock::create_owned(dir(), k_id);
  ASSERT_TRUE(owned.has_value());
  try {
    const DescriptorsExhausted exhausted;
    TaskLock::open_existing(dir(), k_id);
    ADD_FAILURE() << "open_existing returned without a descriptor to spare";
  } catch (const bgtask::Error& error) {
    EXPECT_NE(std::string(error.what()).find(bgtask::lock_file_name(k_id)), std::string::npos) << error.what();
  }
}
