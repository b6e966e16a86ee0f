#include <bgtask/exec/local/output_capture.hpp>

#include <gtest/gtest.h>

#include <fcntl.h>
#include <string>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

using bgtask::OutputCapture;
using bgtask::UniqueFd;

namespace {

struct Pipe
{
  UniqueFd read;
  UniqueFd write;
};

Pipe make_pipe()
{
  int fds[2];
  EXPECT_EQ(::pipe2(fds, O_CLOEXEC), 0);
  return {UniqueFd(fds[0]), UniqueFd(fds[1])};
}

UniqueFd make_output_file()
{
  return UniqueFd(::memfd_create("output", MFD_CLOEXEC));
}

std::uint64_t size_of(int fd)
{
  struct stat st
  {
  };
  EXPECT_EQ(::fstat(fd, &st), 0);
  return static_cast<std::uint64_t>(st.st_size);
}

void write_text(int fd, const std::string& text)
{
  ASSERT_EQ(::write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
}

} // namespace

TEST(OutputCapture, KeepsEverythingUnderTheLimit)
{
  auto pipe = make_pipe();
  const auto output = make_output_file();
  OutputCapture capture(std::move(pipe.read), output.get(), 1000);
  write_text(pipe.write.get(), "hello\n");
  pipe.write.close();
  capture.drain();
  EXPECT_EQ(size_of(output.get()), 6U);
  EXPECT_FALSE(capture.truncated());
  EXPECT_EQ(capture.dropped_bytes(), 0U);
  EXPECT_EQ(capture.fd(), -1) << "end of file closes the pipe";
}

TEST(OutputCapture, KeepsTheHeadUpToTheLimitAndCountsTheRest)
{
  auto pipe = make_pipe();
  const auto output = make_output_file();
  OutputCapture capture(std::move(pipe.read), output.get(), 1000);
  write_text(pipe.write.get(), std::string(600, 'a'));
  capture.drain();
  write_text(pipe.write.get(), std::string(600, 'b'));
  write_text(pipe.write.get(), std::string(30000, 'c'));
  pipe.write.close();
  capture.drain();
  EXPECT_EQ(size_of(output.get()), 1000U);
  EXPECT_TRUE(capture.truncated());
  EXPECT_EQ(capture.dropped_bytes(), 600U + 600U + 30000U - 1000U);
  char last = 0;
  ASSERT_EQ(::pread(output.get(), &last, 1, 999), 1);
  EXPECT_EQ(last, 'b');
}

TEST(OutputCapture, KeepsNothingWithALimitOfZero)
{
  auto pipe = make_pipe();
  const auto output = make_output_file();
  OutputCapture capture(std::move(pipe.read), output.get(), 0);
  write_text(pipe.write.get(), "x");
  pipe.write.close();
  capture.drain();
  EXPECT_EQ(size_of(output.get()), 0U);
  EXPECT_EQ(capture.dropped_bytes(), 1U);
}

TEST(OutputCapture, ReturnsAtOnceWhenThePipeIsEmpty)
{
  auto pipe = make_pipe();
  const auto output = make_output_file();
  OutputCapture capture(std::move(pipe.read), output.get(), 1000);
  capture.drain();
  EXPECT_NE(capture.fd(), -1) << "an empty pipe is not end of file";
  EXPECT_FALSE(capture.truncated());
}

TEST(OutputCapture, KeepsDrainingAndRecordsTheErrorWhenTheFileIsFull)
{
  auto pipe = make_pipe();
  const UniqueFd full(::open("/dev/full", O_WRONLY | O_CLOEXEC));
  if (!full) {
    GTEST_SKIP() << "/dev/full is not available";
  }
  OutputCapture capture(std::move(pipe.read), full.get(), 1000);
  write_text(pipe.write.get(), std::string(5000, 'x'));
  pipe.write.close();
  capture.drain();
  EXPECT_EQ(capture.fd(), -1);
  EXPECT_TRUE(capture.truncated());
  EXPECT_EQ(capture.dropped_bytes(), 5000U);
  EXPECT_FALSE(capture.write_error().empty());
}
