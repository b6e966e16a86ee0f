#include <bgtask/util/fd_io.hpp>
#include <bgtask/util/unique_fd.hpp>

#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <string>
#include <sys/stat.h>
#include <thread>
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

TEST(FdIo, ReadsASmallFileUpToItsLimitAndNothingForAMissingOne)
{
  EXPECT_EQ(bgtask::read_small_file("/proc/self/comm", 4096).back(), '\n');
  EXPECT_EQ(bgtask::read_small_file("/proc/self/comm", 3).size(), 3U);
  EXPECT_EQ(bgtask::read_small_file("/nonexistent/file", 10), "");
}

// A pipe gives what was written so far: one read(2) can return part of
// what comes, as it can for a /proc file longer than the kernel's first
// answer.
TEST(FdIo, ReadsASmallFileToItsEndThroughShortReads)
{
  char dir_template[] = "/tmp/fd_io_test.XXXXXX";
  ASSERT_NE(::mkdtemp(dir_template), nullptr);
  const std::string fifo = std::string(dir_template) + "/fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto old = std::signal(SIGPIPE, SIG_IGN); // a reader that stops early
  std::thread writer([&] {
    const bgtask::UniqueFd fd(::open(fifo.c_str(), O_WRONLY | O_CLOEXEC));
    EXPECT_EQ(bgtask::write_all(fd.get(), "first "), 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_EQ(bgtask::write_all(fd.get(), "second"), 0);
  });
  const std::string text = bgtask::read_small_file(fifo.c_str(), 100);
  writer.join();
  std::signal(SIGPIPE, old);
  ::unlink(fifo.c_str());
  ::rmdir(dir_template);
  EXPECT_EQ(text, "first second");
}
