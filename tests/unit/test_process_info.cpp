#include <bgtask/proc/process_info.hpp>

#include <gtest/gtest.h>

#include <unistd.h>

TEST(ProcessStat, ReadsTheSessionOfAProcess)
{
  const auto stat = bgtask::read_process_stat(::getpid());
  ASSERT_TRUE(stat.has_value());
  EXPECT_EQ(stat->session, ::getsid(0));
  EXPECT_EQ(stat->pgid, ::getpgrp());
  EXPECT_EQ(stat->ppid, ::getppid());
}

TEST(IsSameProcess, RequiresTheSessionWhenGivenOne)
{
  const auto stat = bgtask::read_process_stat(::getpid());
  ASSERT_TRUE(stat.has_value());
  EXPECT_TRUE(bgtask::is_same_process(::getpid(), stat->start_time));
  EXPECT_TRUE(bgtask::is_same_process(::getpid(), stat->start_time, ::getsid(0)));
  // Same pid and start time, another session: a stranger that reused the pid.
  EXPECT_FALSE(bgtask::is_same_process(::getpid(), stat->start_time, ::getsid(0) + 1));
  EXPECT_FALSE(bgtask::is_same_process(::getpid(), stat->start_time + 1, ::getsid(0)));
}

TEST(ThisMachine, AMatchingBootIdIsThisBootAndMachineWhateverTheHostIsCalled)
{
  const std::string boot = bgtask::current_boot_id();
  const std::string host = bgtask::current_host_name();
  const std::string other_boot = "00000000-0000-0000-0000-000000000000";
  EXPECT_TRUE(bgtask::is_this_boot(boot));
  EXPECT_TRUE(bgtask::is_this_machine("renamed.example", boot));
  EXPECT_FALSE(bgtask::is_this_boot(other_boot));
  EXPECT_TRUE(bgtask::is_this_machine(host, other_boot)); // this machine, before a reboot
  EXPECT_FALSE(bgtask::is_this_machine("elsewhere.example", other_boot));
}
