#include <bgtask/store/outcome_reserve.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/store/task_files.hpp>
#include <bgtask/store/task_lock.hpp>

#include <gtest/gtest.h>

#include "temp_root.hpp"
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

using bgtask::TaskRecord;
using bgtask::TaskState;

namespace {

constexpr const char* k_id = "2nk0000000aa";

TaskRecord final_record(std::string id)
{
  TaskRecord r;
  r.id = std::move(id);
  r.command = {"sleep", "1"};
  r.cwd = "/";
  r.created_at = bgtask::now();
  r.started_at = r.created_at;
  r.exit_code = 3;
  bgtask::finish_record(r, TaskState::failed, "exited with status 3");
  return r;
}

} // namespace

class OutcomeReserve : public ::testing::Test
{
protected:
  void SetUp() override
  {
    m_dir.emplace(bgtask::TaskDir::open((m_root / "tasks").string()));
    m_lock = bgtask::TaskLock::create_owned(*m_dir, k_id);
    ASSERT_TRUE(m_lock.has_value());
  }

  std::uintmax_t lock_size() const
  {
    return fs::file_size(m_root / "tasks" / bgtask::lock_file_name(k_id));
  }

  TempRoot m_root{"reserve"};
  std::optional<bgtask::TaskDir> m_dir;
  std::optional<bgtask::TaskLock> m_lock;
};

TEST_F(OutcomeReserve, ReservesSpaceAndGivesMostOfItBack)
{
  ASSERT_EQ(bgtask::reserve_outcome_space(*m_lock), 0);
  EXPECT_EQ(lock_size(), 64u * 1024);
  bgtask::release_outcome_space(*m_lock);
  EXPECT_EQ(lock_size(), 16u * 1024);
  bgtask::drop_outcome_reserve(*m_lock);
  EXPECT_EQ(lock_size(), 0u);
}

TEST_F(OutcomeReserve, FindsNoNoteInAFreshReserve)
{
  ASSERT_EQ(bgtask::reserve_outcome_space(*m_lock), 0);
  EXPECT_FALSE(bgtask::read_outcome_note(*m_lock, k_id).has_value());
}

TEST_F(OutcomeReserve, ReadsBackTheFinalRecordLeftAsANote)
{
  ASSERT_EQ(bgtask::reserve_outcome_space(*m_lock), 0);
  bgtask::release_outcome_space(*m_lock);
  bgtask::write_outcome_note(*m_lock, final_record(k_id));
  const auto note = bgtask::read_outcome_note(*m_lock, k_id);
  ASSERT_TRUE(note.has_value());
  EXPECT_EQ(note->state, TaskState::failed);
  EXPECT_EQ(note->exit_code, 3);
  EXPECT_EQ(note->error, "exited with status 3");
}

TEST_F(OutcomeReserve, IgnoresANoteOfAnotherTaskOrAnUnfinishedOne)
{
  bgtask::write_outcome_note(*m_lock, final_record("2nk0000000bb"));
  EXPECT_FALSE(bgtask::read_outcome_note(*m_lock, k_id).has_value());
  TaskRecord running = final_record(k_id);
  running.state = TaskState::running;
  bgtask::write_outcome_note(*m_lock, running);
  EXPECT_FALSE(bgtask::read_outcome_note(*m_lock, k_id).has_value());
}

TEST_F(OutcomeReserve, DroppingTheReserveDropsTheNote)
{
  bgtask::write_outcome_note(*m_lock, final_record(k_id));
  bgtask::drop_outcome_reserve(*m_lock);
  EXPECT_FALSE(bgtask::read_outcome_note(*m_lock, k_id).has_value());
}
