#include <bgtask/core/queue_admission.hpp>

#include <gtest/gtest.h>

using bgtask::DependencyState;
using bgtask::TaskRecord;
using bgtask::TaskState;
using bgtask::WaitingFor;

namespace {

TaskRecord parked(WaitingFor waiting)
{
  TaskRecord record;
  record.id = "20260101-0001";
  record.state = TaskState::queued;
  record.waiting_for = waiting;
  record.queue = "q";
  return record;
}

} // namespace

TEST(QueueAdmission, AQueuedRecordWithoutOwnerIsParked)
{
  EXPECT_TRUE(bgtask::is_parked(parked(WaitingFor::slot)));
  EXPECT_TRUE(bgtask::is_parked(parked(WaitingFor::after)));
}

TEST(QueueAdmission, AQueuedRecordWithAnOwnerIsNotParked)
{
  // The shape of a task whose supervisor waited: reconciled as a process.
  auto record = parked(WaitingFor::slot);
  record.owner = bgtask::OwnerIdentity{};
  EXPECT_FALSE(bgtask::is_parked(record));
}

TEST(QueueAdmission, NeitherARunningNorASlurmRecordIsParked)
{
  auto running = parked(WaitingFor::slot);
  running.state = TaskState::running;
  EXPECT_FALSE(bgtask::is_parked(running));
  auto slurm = parked(WaitingFor::slot);
  slurm.executor = bgtask::k_slurm_executor;
  EXPECT_FALSE(bgtask::is_parked(slurm));
  auto unset = parked(WaitingFor::slot);
  unset.waiting_for.reset();
  EXPECT_FALSE(bgtask::is_parked(unset));
}

TEST(QueueAdmission, DependenciesWaitUntilFinalAndOnlySuccessAdmits)
{
  TaskRecord dependency;
  dependency.state = TaskState::running;
  EXPECT_EQ(bgtask::dependency_state(dependency), DependencyState::waiting);
  dependency.state = TaskState::queued;
  EXPECT_EQ(bgtask::dependency_state(dependency), DependencyState::waiting);
  dependency.state = TaskState::succeeded;
  EXPECT_EQ(bgtask::dependency_state(dependency), DependencyState::succeeded);
  for (const auto state : {TaskState::failed, TaskState::cancelled, TaskState::lost}) {
    dependency.state = state;
    EXPECT_EQ(bgtask::dependency_state(dependency), DependencyState::failed);
  }
}

TEST(QueueAdmission, ATaskWithDependenciesWaitsForThemFirst)
{
  TaskRecord record;
  record.queue = "q";
  EXPECT_EQ(bgtask::first_wait(record), WaitingFor::slot);
  record.after = {"20260101-0001"};
  EXPECT_EQ(bgtask::first_wait(record), WaitingFor::after);
  EXPECT_TRUE(bgtask::must_wait_for_turn(record));
}
