#include <bgtask/core/cleanup_selection.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <vector>

using bgtask::CleanupCriteria;
using bgtask::select_for_removal;
using bgtask::TaskRecord;
using bgtask::TaskState;
using bgtask::TimePoint;

namespace {

const TimePoint k_epoch{std::chrono::hours(24 * 365 * 50)};

// A final record that finished `minutes` after k_epoch.
TaskRecord finished(const char* id, int minutes, TaskState state = TaskState::succeeded)
{
  TaskRecord record;
  record.id = id;
  record.state = state;
  record.created_at = k_epoch;
  record.finished_at = k_epoch + std::chrono::minutes(minutes);
  return record;
}

CleanupCriteria everything()
{
  CleanupCriteria criteria;
  criteria.cutoff = k_epoch + std::chrono::hours(1000);
  return criteria;
}

std::vector<std::string> ids(const std::vector<TaskRecord>& records,
                             const std::vector<std::size_t>& chosen)
{
  std::vector<std::string> out;
  for (const auto i : chosen) {
    out.push_back(records[i].id);
  }
  return out;
}

using Ids = std::vector<std::string>;

} // namespace

TEST(SelectForRemoval, TakesEveryTaskOldestFirst)
{
  const std::vector<TaskRecord> records{finished("c", 30), finished("a", 10), finished("b", 20)};
  EXPECT_EQ(ids(records, select_for_removal(records, {}, everything())), (Ids{"a", "b", "c"}));
}

TEST(SelectForRemoval, SparesTasksThatFinishedAfterTheCutoff)
{
  const std::vector<TaskRecord> records{finished("old", 10), finished("new", 50)};
  auto criteria = everything();
  criteria.cutoff = k_epoch + std::chrono::minutes(30);
  EXPECT_EQ(ids(records, select_for_removal(records, {}, criteria)), (Ids{"old"}));
  criteria.cutoff = k_epoch + std::chrono::minutes(10); // finished exactly at it: removed
  EXPECT_EQ(ids(records, select_for_removal(records, {}, criteria)), (Ids{"old"}));
  criteria.cutoff = k_epoch;
  EXPECT_TRUE(select_for_removal(records, {}, criteria).empty());
}

TEST(SelectForRemoval, ATaskWithoutFinishTimeCountsFromItsCreation)
{
  std::vector<TaskRecord> records{finished("x", 10), finished("y", 5)};
  records[0].finished_at.reset(); // created at k_epoch
  EXPECT_EQ(ids(records, select_for_removal(records, {}, everything())), (Ids{"x", "y"}));
}

TEST(SelectForRemoval, OnlyTheAskedStates)
{
  const std::vector<TaskRecord> records{finished("ok", 1), finished("bad", 2, TaskState::failed),
                                        finished("lost", 3, TaskState::lost)};
  auto criteria = everything();
  criteria.states = {"failed", "lost"};
  EXPECT_EQ(ids(records, select_for_removal(records, {}, criteria)), (Ids{"bad", "lost"}));
}

TEST(SelectForRemoval, KeepSparesTheNewestWhateverElseMatches)
{
  const std::vector<TaskRecord> records{finished("a", 1), finished("b", 2), finished("c", 3),
                                        finished("d", 4)};
  auto criteria = everything();
  criteria.keep = 3;
  EXPECT_EQ(ids(records, select_for_removal(records, {}, criteria)), (Ids{"a"}));
  criteria.keep = 4;
  EXPECT_TRUE(select_for_removal(records, {}, criteria).empty());
  criteria.keep = 10;
  EXPECT_TRUE(select_for_removal(records, {}, criteria).empty());
}

TEST(SelectForRemoval, MaxBytesRemovesOldestUntilTheRestFits)
{
  const std::vector<TaskRecord> records{finished("c", 3), finished("a", 1), finished("b", 2)};
  const std::vector<std::uint64_t> bytes{100, 300, 200}; // c, a, b
  auto criteria = everything();
  criteria.max_bytes = 600;
  EXPECT_TRUE(select_for_removal(records, bytes, criteria).empty());
  criteria.max_bytes = 350; // 600 in all: a goes (300 left)
  EXPECT_EQ(ids(records, select_for_removal(records, bytes, criteria)), (Ids{"a"}));
  criteria.max_bytes = 250; // a (300 left), then b (100 left)
  EXPECT_EQ(ids(records, select_for_removal(records, bytes, criteria)), (Ids{"a", "b"}));
  criteria.max_bytes = 0;
  EXPECT_EQ(ids(records, select_for_removal(records, bytes, criteria)), (Ids{"a", "b", "c"}));
}

TEST(SelectForRemoval, MaxBytesCountsKeptAndSparedTasksButDoesNotRemoveThem)
{
  const std::vector<TaskRecord> records{finished("a", 1, TaskState::failed), finished("b", 2),
                                        finished("c", 3)};
  const std::vector<std::uint64_t> bytes{100, 100, 100};
  auto criteria = everything();
  criteria.max_bytes = 50;
  criteria.keep = 1;               // c stays, its 100 bytes still count
  criteria.states = {"succeeded"}; // a is spared, its bytes count too
  EXPECT_EQ(ids(records, select_for_removal(records, bytes, criteria)), (Ids{"b"}));
}
