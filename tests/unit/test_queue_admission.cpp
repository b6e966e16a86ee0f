#include <bgtask/core/queue_admission.hpp>

#include <gtest/gtest.h>

#include <optional>
#include <vector>

using bgtask::may_take_slot;
using bgtask::TaskRecord;
using bgtask::TaskState;
using bgtask::WaitingFor;
using bgtask::waits_ahead;

namespace {

TaskRecord task(const char* id, TaskState state, std::optional<WaitingFor> waiting = {})
{
  TaskRecord record;
  record.id = id;
  record.state = state;
  record.waiting_for = waiting;
  return record;
}

std::vector<const TaskRecord*> pointers(const std::vector<TaskRecord>& records)
{
  std::vector<const TaskRecord*> out;
  for (const auto& r : records) {
    out.push_back(&r);
  }
  return out;
}

} // namespace

TEST(QueueAdmission, AnEmptyQueueAdmits)
{
  EXPECT_TRUE(may_take_slot("20260101-0005", {}, 1));
  EXPECT_FALSE(may_take_slot("20260101-0005", {}, 0));
}

TEST(QueueAdmission, RunningTasksFillTheSlots)
{
  const std::vector<TaskRecord> others{task("20260101-0001", TaskState::running),
                                       task("20260101-0009", TaskState::running)};
  EXPECT_FALSE(may_take_slot("20260101-0005", pointers(others), 1));
  EXPECT_FALSE(may_take_slot("20260101-0005", pointers(others), 2));
  EXPECT_TRUE(may_take_slot("20260101-0005", pointers(others), 3));
}

TEST(QueueAdmission, AnOlderTaskWaitingForASlotGoesFirst)
{
  const std::vector<TaskRecord> older{task("20260101-0001", TaskState::queued, WaitingFor::slot)};
  EXPECT_TRUE(waits_ahead(older[0], "20260101-0005"));
  EXPECT_FALSE(may_take_slot("20260101-0005", pointers(older), 4));
  // The older one itself is not held up by the younger.
  const std::vector<TaskRecord> younger{task("20260101-0005", TaskState::queued, WaitingFor::slot)};
  EXPECT_FALSE(waits_ahead(younger[0], "20260101-0001"));
  EXPECT_TRUE(may_take_slot("20260101-0001", pointers(younger), 4));
}

TEST(QueueAdmission, AnOlderTaskStillWaitingForItsDependenciesDoesNotHoldTheQueue)
{
  const std::vector<TaskRecord> others{task("20260101-0001", TaskState::queued, WaitingFor::after)};
  EXPECT_FALSE(waits_ahead(others[0], "20260101-0005"));
  EXPECT_TRUE(may_take_slot("20260101-0005", pointers(others), 1));
}

TEST(QueueAdmission, AnOlderQueuedTaskWithoutWaitingForStillCountsAsAhead)
{
  const std::vector<TaskRecord> others{task("20260101-0001", TaskState::queued)};
  EXPECT_TRUE(waits_ahead(others[0], "20260101-0005"));
  EXPECT_FALSE(may_take_slot("20260101-0005", pointers(others), 1));
}

TEST(QueueAdmission, RunningTasksNeverWaitAhead)
{
  const TaskRecord running = task("20260101-0001", TaskState::running);
  EXPECT_FALSE(waits_ahead(running, "20260101-0005"));
}
