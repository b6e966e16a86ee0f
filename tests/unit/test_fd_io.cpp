#include <bgtask/util/fd_io.hpp>
#include <bgtask/util/unique_fd.hpp>

#include <gtest/gtest.h>

#include <cerrno>
#include <csignal>
#include <string>
#include <unistd.h>

namespace {

struct Pipe
{
  bgtask::UniqueFd read_end;
  bgtask::UniqueFd write_end;
  Pipe() { EXPECT_TRUE(bgtask::make_pipe(read_end, write_end)); }
};

} // namespace

TEST(FdIo, WritesAndReadsWholeBuffersUpToTheLimit)
{
  Pipe pipe;
  const std::string data(10000, 'x');
  EXPECT_EQ(bgtask::write_all(pipe.write_end.get(), data), 0);
  pipe.write_end.close();
  std::string head = "<";
  EXPECT_EQ(bgtask::read_all(pipe.read_end.get(), head, 100), 0);
  EXPECT_EQ(head, "<" + std::string(100, 'x'));
  std::string rest;
  EXPECT_EQ(bgtask::read_all(pipe.read_end.get(), rest, 1 << 20), 0);
  EXPECT_EQ(rest.size(), data.size() - 100);
}

TEST(FdIo, SaysWhyAWriteFailed)
{
  Pipe pipe;
  pipe.read_end.close();
  const auto old = std::signal(SIGPIPE, SIG_IGN);
  EXPECT_EQ(bgtask::write_all(pipe.write_end.get(), "lost"), EPIPE);
  std::signal(SIGPIPE, old);
  EXPECT_EQ(bgtask::write_all(-1, "x"), EBADF);
  std::string text;
  EXPECT_EQ(bgtask::read_all(-1, text, 10), EBADF);
}

TEST(FdIo, ReadsASmallFileInOneGoAndNothingForAMissingOne)
{
  EXPECT_EQ(bgtask::read_small_file("/proc/self/comm", 4096).back(), '\n');
  EXPECT_EQ(bgtask::read_small_file("/proc/self/comm", 3).size(), 3U);
  EXPECT_EQ(bgtask::read_small_file("/nonexistent/file", 10), "");
}
