#include <bgtask/store/output_file.hpp>

#include <gtest/gtest.h>

#include <string>
#include <sys/mman.h>
#include <unistd.h>

using bgtask::find_tail_start;
using bgtask::read_last_lines;
using bgtask::UniqueFd;

namespace {

UniqueFd file_with(const std::string& text)
{
  UniqueFd fd(::memfd_create("output", MFD_CLOEXEC));
  EXPECT_EQ(::write(fd.get(), text.data(), text.size()), static_cast<ssize_t>(text.size()));
  return fd;
}

} // namespace

TEST(OutputTail, StartsAfterTheNewlineBeforeTheLastLines)
{
  const auto fd = file_with("one\ntwo\nthree\n");
  EXPECT_EQ(find_tail_start(fd.get(), 1), 8U);
  EXPECT_EQ(find_tail_start(fd.get(), 2), 4U);
  EXPECT_EQ(read_last_lines(fd.get(), 2), "two\nthree\n");
}

TEST(OutputTail, CountsAFinalLineWithoutNewline)
{
  const auto fd = file_with("one\ntwo");
  EXPECT_EQ(read_last_lines(fd.get(), 1), "two");
  EXPECT_EQ(read_last_lines(fd.get(), 2), "one\ntwo");
}

TEST(OutputTail, GivesTheWholeFileWhenItHasFewerLines)
{
  const auto fd = file_with("one\ntwo\n");
  EXPECT_EQ(find_tail_start(fd.get(), 10), 0U);
  EXPECT_EQ(read_last_lines(fd.get(), 10), "one\ntwo\n");
}

TEST(OutputTail, GivesNothingForZeroLinesOrAnEmptyFile)
{
  const auto fd = file_with("one\n");
  EXPECT_EQ(find_tail_start(fd.get(), 0), 4U);
  EXPECT_EQ(read_last_lines(fd.get(), 0), "");
  const auto empty = file_with("");
  EXPECT_EQ(find_tail_start(empty.get(), 3), 0U);
  EXPECT_EQ(read_last_lines(empty.get(), 3), "");
}

TEST(OutputTail, FindsLinesAcrossReadBlocks)
{
  const std::string a(100000, 'a');
  const std::string b(70000, 'b');
  const auto fd = file_with(a + "\n" + b + "\nend\n");
  EXPECT_EQ(read_last_lines(fd.get(), 2), b + "\nend\n");
  EXPECT_EQ(read_last_lines(fd.get(), 3), a + "\n" + b + "\nend\n");
}

TEST(OutputTail, SearchesNoFurtherBackThanAsked)
{
  const auto fd = file_with(std::string(1000, 'x'));
  EXPECT_EQ(find_tail_start(fd.get(), 1, 100), 900U);
  EXPECT_EQ(find_tail_start(fd.get(), 1), 0U);
}

TEST(OutputTail, ReadsAtMostTheTailLimit)
{
  const auto fd = file_with(std::string(bgtask::k_max_tail_bytes + 5000, 'x') + "\n");
  const std::string tail = read_last_lines(fd.get(), 1);
  EXPECT_EQ(tail.size(), bgtask::k_max_tail_bytes);
  EXPECT_EQ(tail.back(), '\n');
}
