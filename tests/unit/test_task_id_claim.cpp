#include <bgtask/core/task_id.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/store/task_files.hpp>
#include <bgtask/store/task_id_claim.hpp>

#include <gtest/gtest.h>

#include "temp_root.hpp"
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/stat.h>

namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

constexpr const char* k_boot = "11111111-2222-3333-4444-555555555555";

std::string slurp(const fs::path& path)
{
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A task ID an hour ahead of the clock: what the directory holds after the
// wall clock was set back by an hour.
std::string id_from_the_future()
{
  return bgtask::make_task_id(std::chrono::system_clock::now() + 1h);
}

} // namespace

class TaskIdClaimTest : public ::testing::Test
{
protected:
  void SetUp() override
  {
    m_dir.emplace(bgtask::TaskDir::open((m_root.path() / "tasks").string()));
  }

  const bgtask::TaskDir& dir() const { return *m_dir; }
  fs::path path() const { return m_root.path() / "tasks"; }
  fs::path hint() const { return path() / ".cache" / "newest"; }

  // A new task's ID, claimed in the boot `boot`.
  std::string claim(const std::string& boot = k_boot)
  {
    bgtask::TimePoint at;
    return bgtask::TaskIdClaim(dir(), boot).next(at).first;
  }

  // A task file `ID.lock` made by hand, as a task whose start the hint did
  // not see would leave it.
  void plant_lock(const std::string& id) { std::ofstream(path() / bgtask::lock_file_name(id)); }

private:
  TempRoot m_root{"id-claim"};
  std::optional<bgtask::TaskDir> m_dir;
};

TEST_F(TaskIdClaimTest, KeepsTheNewestIdWithTheBootFromTheSecondTaskOn)
{
  const auto first = claim();
  EXPECT_TRUE(fs::exists(path() / bgtask::lock_file_name(first)));
  EXPECT_FALSE(fs::exists(hint().parent_path())) << "the first task's files come first";
  const auto id = claim();
  EXPECT_GT(id, first);
  EXPECT_EQ(slurp(hint()), id + " " + k_boot + "\n");
  struct stat st
  {
  };
  ASSERT_EQ(::stat(hint().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600U);
}

TEST_F(TaskIdClaimTest, SortsAfterAnIdOnlyTheHintKnows)
{
  // The hint alone knows the newest ID (its task was removed since): the
  // next ID sorts after it, so the directory was not scanned.
  claim();
  claim();
  const auto future = id_from_the_future();
  std::ofstream(hint(), std::ios::trunc) << future << " " << k_boot << "\n";
  EXPECT_GT(claim(), future);
}

TEST_F(TaskIdClaimTest, ScansWhenTheHintIsOfAnotherBoot)
{
  claim();
  claim();
  const auto future = id_from_the_future();
  plant_lock(future);
  // The hint of this boot does not know the planted task.
  EXPECT_LT(claim(), future);
  // After a reboot (a power cut may have lost the hint's last write), the
  // directory decides.
  const auto after_reboot = claim("99999999-2222-3333-4444-555555555555");
  EXPECT_GT(after_reboot, future);
  EXPECT_EQ(slurp(hint()), after_reboot + " 99999999-2222-3333-4444-555555555555\n");
}

TEST_F(TaskIdClaimTest, ScansWhenTheHintIsTornOrMissing)
{
  claim();
  claim();
  const auto future = id_from_the_future();
  plant_lock(future);
  std::ofstream(hint(), std::ios::trunc) << future.substr(0, 5);
  const auto after_torn = claim();
  EXPECT_GT(after_torn, future);
  EXPECT_EQ(slurp(hint()), after_torn + " " + k_boot + "\n"); // the torn tail is gone too
  fs::remove(hint());
  EXPECT_GT(claim(), after_torn);
}

TEST_F(TaskIdClaimTest, IgnoresAHintOthersCanWrite)
{
  claim();
  claim();
  const auto future = id_from_the_future();
  plant_lock(future);
  std::ofstream(hint(), std::ios::trunc) << "00000000" << future.substr(8) << " " << k_boot << "\n";
  fs::permissions(hint(), fs::perms::group_write, fs::perm_options::add);
  EXPECT_GT(claim(), future);
}

TEST_F(TaskIdClaimTest, EachIdSortsAfterTheOneBefore)
{
  bgtask::TaskIdClaim claim(dir(), k_boot);
  std::string previous;
  for (int i = 0; i < 50; ++i) {
    bgtask::TimePoint at;
    const auto id = claim.next(at).first;
    EXPECT_GT(id, previous);
    previous = id;
  }
}
