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
