#include <bgtask/store/parked_tasks.hpp>
#include <bgtask/store/task_dir.hpp>

#include <gtest/gtest.h>

#include "temp_root.hpp"
#include <chrono>
#include <filesystem>
#include <sys/stat.h>

namespace fs = std::filesystem;
using std::chrono::milliseconds;

namespace {

class LostHandoffLookTest : public ::testing::Test
{
protected:
  void SetUp() override { m_dir.emplace(bgtask::TaskDir::open((m_root / "tasks").string())); }

  const bgtask::TaskDir& dir() const { return *m_dir; }
  fs::path note() const { return m_root / "tasks" / ".parked" / ".looked"; }

  void park(const std::string& id)
  {
    bgtask::park_tasks(dir(), {bgtask::ParkedEntry{id, std::string("q")}}, bgtask::LaunchContext{});
  }

  TempRoot m_root{"look"};
  std::optional<bgtask::TaskDir> m_dir;
};

TEST_F(LostHandoffLookTest, IsAlwaysDueWhereNothingIsParked)
{
  EXPECT_TRUE(bgtask::lost_handoff_look_due(dir(), milliseconds(60000)));
  EXPECT_TRUE(bgtask::lost_handoff_look_due(dir(), milliseconds(60000)));
  EXPECT_FALSE(fs::exists(note()));
}

TEST_F(LostHandoffLookTest, IsDueOncePerInterval)
{
  park("aaaaaaaaaaaa");
  EXPECT_TRUE(bgtask::lost_handoff_look_due(dir(), milliseconds(60000)));
  EXPECT_FALSE(bgtask::lost_handoff_look_due(dir(), milliseconds(60000)));
  // The note leaves the parked tasks as they were: one file, the task's.
  EXPECT_EQ(bgtask::scan_parked_tasks(dir()).size(), 1U);
}

TEST_F(LostHandoffLookTest, IsDueAgainOnceTheIntervalPassed)
{
  park("aaaaaaaaaaaa");
  EXPECT_TRUE(bgtask::lost_handoff_look_due(dir(), milliseconds(60000)));
  // A note from two minutes ago.
  const auto old = fs::last_write_time(note()) - std::chrono::minutes(2);
  fs::last_write_time(note(), old);
  EXPECT_TRUE(bgtask::lost_handoff_look_due(dir(), milliseconds(60000)));
  EXPECT_FALSE(bgtask::lost_handoff_look_due(dir(), milliseconds(60000)));
}

TEST_F(LostHandoffLookTest, IsDueWhenTheNoteIsFromTheFuture)
{
  park("aaaaaaaaaaaa");
  EXPECT_TRUE(bgtask::lost_handoff_look_due(dir(), milliseconds(60000)));
  // A clock set back: a note "ahead" never silences the looks.
  fs::last_write_time(note(), fs::last_write_time(note()) + std::chrono::hours(1));
  EXPECT_TRUE(bgtask::lost_handoff_look_due(dir(), milliseconds(60000)));
}

} // namespace
