#include <bgtask/exec/local/output_holders.hpp>
#include <bgtask/proc/process_info.hpp>
#include <bgtask/proc/process_tree.hpp>
#include <bgtask/proc/session_members.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/store/task_files.hpp>

#include <gtest/gtest.h>

#include "temp_root.hpp"
#include <algorithm>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace {

bool contains(const std::vector<int>& pids, int pid)
{
  return std::find(pids.begin(), pids.end(), pid) != pids.end();
}

// A child that leads a new session and forks one member of it; both sleep
// until killed. Returns the leader's pid and (through `member`) the member's.
pid_t session_with_member(pid_t& member)
{
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) {
    return -1;
  }
  const pid_t leader = ::fork();
  if (leader == 0) {
    ::setsid();
    const pid_t inner = ::fork();
    if (inner == 0) {
      ::pause();
      ::_exit(0);
    }
    (void)!::write(pipe_fds[1], &inner, sizeof(inner));
    ::pause();
    ::_exit(0);
  }
  ::close(pipe_fds[1]);
  if (::read(pipe_fds[0], &member, sizeof(member)) != sizeof(member)) {
    member = -1;
  }
  ::close(pipe_fds[0]);
  return leader;
}

void end(pid_t leader, pid_t member)
{
  ::kill(member, SIGKILL);
  ::kill(leader, SIGKILL);
  ::waitpid(leader, nullptr, 0);
}

} // namespace

TEST(SessionMembers, FindsTheMembersOfTheSessionItsLeaderCreated)
{
  pid_t member = -1;
  const pid_t leader = session_with_member(member);
  ASSERT_GT(leader, 0);
  ASSERT_GT(member, 0);
  const auto stat = bgtask::read_process_stat(leader);
  ASSERT_TRUE(stat.has_value());
  const bgtask::SessionIdentity session{leader, stat->start_time, ::geteuid()};
  const auto members = bgtask::session_members(session);
  EXPECT_TRUE(contains(members, member));
  EXPECT_FALSE(contains(members, leader)); // the leader is not its own member
  EXPECT_TRUE(bgtask::is_session_member(member, session));
  // A leader with another start time: the session id is someone else's now.
  EXPECT_TRUE(bgtask::session_members({leader, stat->start_time + 1, ::geteuid()}).empty());
  EXPECT_FALSE(bgtask::is_session_member(member, {leader, stat->start_time + 1, ::geteuid()}));
  // Members must belong to the task's user.
  EXPECT_TRUE(bgtask::session_members({leader, stat->start_time, ::geteuid() + 1}).empty());
  // This process is in another session.
  EXPECT_FALSE(bgtask::is_session_member(::getpid(), session));
  end(leader, member);
}

TEST(SessionMembers, SignalsOnlyVerifiedMembers)
{
  pid_t member = -1;
  const pid_t leader = session_with_member(member);
  ASSERT_GT(member, 0);
  const auto stat = bgtask::read_process_stat(leader);
  ASSERT_TRUE(stat.has_value());
  const bgtask::SessionIdentity session{leader, stat->start_time, ::geteuid()};
  // Our own pid is no member: asked to signal it and the member, only the
  // member gets signal 0.
  EXPECT_EQ(bgtask::signal_session_members(session, {::getpid(), member}, 0), 1);
  EXPECT_EQ(
    bgtask::signal_session_members({leader, stat->start_time, ::geteuid() + 1}, {member}, 0), 0);
  end(leader, member);
}

TEST(FindDescendants, LeavesOutAPrunedProcessAndEverythingBelowIt)
{
  pid_t grandchild = -1;
  const pid_t child = session_with_member(grandchild);
  ASSERT_GT(grandchild, 0);
  const auto all = bgtask::find_descendants(::getpid());
  EXPECT_TRUE(contains(all, child));
  EXPECT_TRUE(contains(all, grandchild));
  const auto pruned = bgtask::find_descendants(
    ::getpid(), [&](int pid, const bgtask::ProcessStat&) { return pid == child; });
  EXPECT_FALSE(contains(pruned, child));
  EXPECT_FALSE(contains(pruned, grandchild));
  end(child, grandchild);
}

TEST(OutputHolders, TheOutputIsHeldWhileAnyProcessHasTheCommandsDescription)
{
  const TempRoot root("output-holders");
  const auto dir = bgtask::TaskDir::open(root.path().string());
  const std::string id = "01hx2k3m4n5q";
  bgtask::UniqueFd own(::openat(dir.fd(), bgtask::output_file_name(id).c_str(),
                                O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0600));
  ASSERT_TRUE(own.valid());
  EXPECT_FALSE(bgtask::output_held_elsewhere(own.get()));
  const auto name = bgtask::output_file_name(id);
  bgtask::UniqueFd held(bgtask::open_held_output(dir.fd(), name.c_str(), own.get()));
  ASSERT_TRUE(held.valid());
  ASSERT_NE(held.get(), own.get());
  EXPECT_TRUE(bgtask::output_held_elsewhere(own.get()));
  // A child inherits it (as a background job inherits stdout); once our own
  // copy is closed, the child alone holds it.
  const pid_t child = ::fork();
  if (child == 0) {
    ::pause();
    ::_exit(0);
  }
  held.close();
  EXPECT_TRUE(bgtask::output_held_elsewhere(own.get()));
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  EXPECT_FALSE(bgtask::output_held_elsewhere(own.get()));
  // What the command writes through it lands in the file.
  held = bgtask::UniqueFd(bgtask::open_held_output(dir.fd(), name.c_str(), own.get()));
  ASSERT_EQ(::write(held.get(), "x", 1), 1);
  struct stat st
  {
  };
  ASSERT_EQ(::fstat(own.get(), &st), 0);
  EXPECT_EQ(st.st_size, 1);
}
