#include <bgtask/core/exit_status.hpp>
#include <bgtask/util/error.hpp>

#include <gtest/gtest.h>

using bgtask::combined_exit_status;
using bgtask::exit_status_of;
using bgtask::TaskRecord;
using bgtask::TaskState;

namespace {

TaskRecord record_in(TaskState state, std::optional<int> exit_code = {},
                     std::optional<int> signal = {})
{
  TaskRecord r;
  r.id = "01hx2k3m4n5p";
  r.state = state;
  r.exit_code = exit_code;
  r.signal = signal;
  return r;
}

} // namespace

TEST(ExitStatus, IsZeroForASucceededTask)
{
  EXPECT_EQ(exit_status_of(record_in(TaskState::succeeded, 0)), 0);
}

TEST(ExitStatus, IsTheExitCodeOfAFailedTask)
{
  EXPECT_EQ(exit_status_of(record_in(TaskState::failed, 1)), 1);
  EXPECT_EQ(exit_status_of(record_in(TaskState::failed, 3)), 3);
  EXPECT_EQ(exit_status_of(record_in(TaskState::failed, 126)), 126);
  EXPECT_EQ(exit_status_of(record_in(TaskState::failed, 127)), 127);
  EXPECT_EQ(exit_status_of(record_in(TaskState::failed, 255)), 255);
}

TEST(ExitStatus, Is128PlusTheSignalOfAKilledTask)
{
  EXPECT_EQ(exit_status_of(record_in(TaskState::failed, std::nullopt, 9)), 137);
  EXPECT_EQ(exit_status_of(record_in(TaskState::failed, std::nullopt, 15)), 143);
  EXPECT_EQ(exit_status_of(record_in(TaskState::failed, std::nullopt, 6)), 134);
}

TEST(ExitStatus, NeverReportsSuccessForAFailedTask)
{
  EXPECT_EQ(exit_status_of(record_in(TaskState::failed)), 1);
  EXPECT_EQ(exit_status_of(record_in(TaskState::failed, 0)), 1);
}

TEST(ExitStatus, UsesTheDocumentedCodesForOtherOutcomes)
{
  EXPECT_EQ(exit_status_of(record_in(TaskState::timed_out, std::nullopt, 15)), 124);
  EXPECT_EQ(exit_status_of(record_in(TaskState::cancelled, std::nullopt, 15)), 125);
  EXPECT_EQ(exit_status_of(record_in(TaskState::cancelled, 0)), 125);
  // A task killed by SIGINT is not a cancelled one: 128 + 2, as a shell reports it.
  EXPECT_EQ(exit_status_of(record_in(TaskState::failed, std::nullopt, 2)), 130);
  EXPECT_EQ(exit_status_of(record_in(TaskState::lost)), 75);
}

TEST(ExitStatus, TreatsAnUnfinishedTaskAsAWaitThatGaveUp)
{
  EXPECT_EQ(exit_status_of(record_in(TaskState::running)), 4);
  EXPECT_EQ(exit_status_of(record_in(TaskState::queued)), 4);
  EXPECT_EQ(bgtask::wait_status_of(record_in(TaskState::running)), std::nullopt);
  EXPECT_EQ(bgtask::wait_status_of(record_in(TaskState::cancelled)), 125);
}

TEST(ExitStatus, CombinesToZeroOnlyIfEveryTaskSucceeded)
{
  EXPECT_EQ(combined_exit_status({}), 0);
  EXPECT_EQ(
    combined_exit_status({record_in(TaskState::succeeded, 0), record_in(TaskState::succeeded, 0)}),
    0);
  EXPECT_EQ(
    combined_exit_status({record_in(TaskState::succeeded, 0), record_in(TaskState::failed, 4)}), 4);
  EXPECT_EQ(combined_exit_status({record_in(TaskState::succeeded, 0), record_in(TaskState::lost)}),
            75);
}

TEST(ExitStatus, CombinesToTheStatusOfTheFirstUnsuccessfulTask)
{
  EXPECT_EQ(
    combined_exit_status({record_in(TaskState::failed, 5), record_in(TaskState::cancelled)}), 5);
  EXPECT_EQ(
    combined_exit_status({record_in(TaskState::succeeded, 0), record_in(TaskState::cancelled),
                          record_in(TaskState::failed, 5)}),
    125);
}
