#include <bgtask/core/task_record.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

using bgtask::add_event;
using bgtask::finish_record;
using bgtask::k_max_events;
using bgtask::TaskRecord;
using bgtask::TaskState;

namespace {

std::size_t count_kind(const TaskRecord& record, std::string_view kind)
{
  return static_cast<std::size_t>(std::count_if(record.events.begin(), record.events.end(),
                                                [&](const auto& e) { return e.kind == kind; }));
}

} // namespace

TEST(AddEvent, AppendsWithTheCurrentTime)
{
  TaskRecord record;
  const auto before = bgtask::now();
  add_event(record, "started");
  add_event(record, "progress", "half way");
  const auto after = bgtask::now();
  ASSERT_EQ(record.events.size(), 2u);
  EXPECT_EQ(record.events[0].kind, "started");
  EXPECT_FALSE(record.events[0].message.has_value());
  EXPECT_EQ(record.events[1].kind, "progress");
  EXPECT_EQ(record.events[1].message, "half way");
  for (const auto& event : record.events) {
    EXPECT_GE(event.at, before);
    EXPECT_LE(event.at, after);
  }
}

TEST(AddEvent, NeverHoldsMoreThanTheBound)
{
  TaskRecord record;
  add_event(record, "started");
  for (std::size_t i = 0; i < 3 * k_max_events; ++i) {
    add_event(record, "progress", std::to_string(i));
    EXPECT_LE(record.events.size(), k_max_events);
  }
  EXPECT_EQ(record.events.size(), k_max_events);
  EXPECT_EQ(record.events.back().message, std::to_string(3 * k_max_events - 1));
}

TEST(AddEvent, KeepsTheFirstEvent)
{
  TaskRecord record;
  add_event(record, "started");
  for (std::size_t i = 0; i < 2 * k_max_events; ++i) {
    add_event(record, "note", std::to_string(i));
  }
  ASSERT_EQ(record.events.size(), k_max_events);
  EXPECT_EQ(record.events.front().kind, "started");
  // Without progress events to drop, the oldest after the first go.
  EXPECT_EQ(record.events[1].message, std::to_string(k_max_events + 1));
  EXPECT_EQ(record.events.back().message, std::to_string(2 * k_max_events - 1));
}

TEST(AddEvent, DropsProgressEventsBeforeOthers)
{
  TaskRecord record;
  add_event(record, "started");
  add_event(record, "cancel_requested");
  for (std::size_t i = 0; i < 2 * k_max_events; ++i) {
    add_event(record, "progress", std::to_string(i));
  }
  add_event(record, "reconciled", "supervisor died; command still running");
  add_event(record, "finished", "lost");
  ASSERT_EQ(record.events.size(), k_max_events);
  EXPECT_EQ(record.events[0].kind, "started");
  EXPECT_EQ(record.events[1].kind, "cancel_requested");
  EXPECT_EQ(count_kind(record, "reconciled"), 1u);
  EXPECT_EQ(record.events.back().kind, "finished");
  EXPECT_EQ(count_kind(record, "progress"), k_max_events - 4);
  // The newest progress events survive, in order.
  EXPECT_EQ(record.events[record.events.size() - 3].message, std::to_string(2 * k_max_events - 1));
}

TEST(AddEvent, KeepsEventsInChronologicalOrder)
{
  TaskRecord record;
  add_event(record, "started");
  for (std::size_t i = 0; i < 2 * k_max_events; ++i) {
    add_event(record, i % 3 == 0 ? "note" : "progress", std::to_string(i));
  }
  for (std::size_t i = 1; i < record.events.size(); ++i) {
    EXPECT_LE(record.events[i - 1].at, record.events[i].at);
  }
  for (std::size_t i = 2; i < record.events.size(); ++i) {
    EXPECT_LT(std::stoul(*record.events[i - 1].message), std::stoul(*record.events[i].message));
  }
}

TEST(FinishRecord, SetsTheStateReasonAndFinishTime)
{
  TaskRecord record;
  record.state = TaskState::running;
  const auto before = bgtask::now();
  record.started_at = before - std::chrono::milliseconds(1500);
  finish_record(record, TaskState::failed, "exited with status 3");
  const auto after = bgtask::now();
  EXPECT_EQ(record.state, TaskState::failed);
  EXPECT_EQ(record.error, "exited with status 3");
  ASSERT_TRUE(record.finished_at.has_value());
  EXPECT_GE(*record.finished_at, before);
  EXPECT_LE(*record.finished_at, after);
  ASSERT_TRUE(record.duration_s.has_value());
  EXPECT_DOUBLE_EQ(*record.duration_s,
                   static_cast<double>((*record.finished_at - *record.started_at).count()) /
                     1000.0);
  EXPECT_GE(*record.duration_s, 1.5);
}

TEST(FinishRecord, AppendsAFinishedEventNamingTheState)
{
  TaskRecord record;
  record.started_at = bgtask::now();
  add_event(record, "started");
  finish_record(record, TaskState::succeeded, std::nullopt);
  ASSERT_EQ(record.events.size(), 2u);
  EXPECT_EQ(record.events.back().kind, "finished");
  EXPECT_EQ(record.events.back().message, "succeeded");
  EXPECT_EQ(record.events.back().at, *record.finished_at);
}

TEST(FinishRecord, ClearsAnEarlierReasonOnSuccess)
{
  TaskRecord record;
  record.started_at = bgtask::now();
  record.error = "stale";
  finish_record(record, TaskState::succeeded, std::nullopt);
  EXPECT_FALSE(record.error.has_value());
}

TEST(FinishRecord, LeavesTheDurationUnsetForATaskThatNeverStarted)
{
  TaskRecord record;
  finish_record(record, TaskState::lost, "host rebooted");
  EXPECT_EQ(record.state, TaskState::lost);
  EXPECT_TRUE(record.finished_at.has_value());
  EXPECT_FALSE(record.duration_s.has_value());
}

TEST(FinishRecord, AppendsTheFinishedEventEvenWhenTheListIsFull)
{
  TaskRecord record;
  record.started_at = bgtask::now();
  add_event(record, "started");
  for (std::size_t i = 0; i < 2 * k_max_events; ++i) {
    add_event(record, "progress", std::to_string(i));
  }
  finish_record(record, TaskState::cancelled, "cancelled on request");
  EXPECT_EQ(record.events.size(), k_max_events);
  EXPECT_EQ(record.events.front().kind, "started");
  EXPECT_EQ(record.events.back().kind, "finished");
}

TEST(FinishRecord, TakesTheDurationFromTheMonotonicClockNotTheWallClock)
{
  TaskRecord record;
  // The wall clock says it started an hour from now (it was set back since).
  record.started_at = bgtask::now() + std::chrono::hours(1);
  auto mark = bgtask::monotonic_now();
  mark.ms -= 2000; // started 2 s ago by the monotonic clock
  record.started_clock = mark;
  finish_record(record, TaskState::succeeded, std::nullopt);
  ASSERT_TRUE(record.duration_s.has_value());
  EXPECT_GE(*record.duration_s, 2.0);
  EXPECT_LT(*record.duration_s, 60.0);
}

TEST(FinishRecord, NeverStoresANegativeDurationFromTheWallClock)
{
  TaskRecord record;
  record.started_at = bgtask::now() + std::chrono::hours(1);
  record.started_clock = bgtask::MonotonicMark{"another-boot/time:[1]", 5};
  finish_record(record, TaskState::lost, "supervisor died");
  ASSERT_TRUE(record.duration_s.has_value());
  EXPECT_EQ(*record.duration_s, 0.0);
}

TEST(TaskStateNames, RoundTripAndListInTheOrderOfATasksLife)
{
  for (const auto& [state, name] : bgtask::k_task_states) {
    EXPECT_EQ(bgtask::to_string(state), name);
    EXPECT_EQ(bgtask::parse_task_state(name), state);
  }
  EXPECT_EQ(bgtask::parse_task_state("corrupt"), std::nullopt);
  EXPECT_EQ(bgtask::task_state_names(", ", " or "),
            "queued, running, succeeded, failed, cancelled, timed_out or lost");
}
