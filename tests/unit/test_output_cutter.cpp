#include <bgtask/exec/local/output_cutter.hpp>
#include <bgtask/util/unique_fd.hpp>

#include <gtest/gtest.h>

#include <fcntl.h>
#include <string>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

using bgtask::OutputCutter;
using bgtask::SizeLookPacer;
using bgtask::UniqueFd;

namespace {

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

// Appends `text` as the command would (its own O_APPEND description).
void append(int fd, const std::string& text)
{
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  const UniqueFd own(::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC));
  ASSERT_TRUE(own);
  ASSERT_EQ(::write(own.get(), text.data(), text.size()), static_cast<ssize_t>(text.size()));
}

std::string contents(int fd)
{
  std::string text(size_of(fd), '\0');
  EXPECT_EQ(::pread(fd, text.data(), text.size(), 0), static_cast<ssize_t>(text.size()));
  return text;
}

} // namespace

TEST(OutputCutter, KeepsEverythingUnderTheLimit)
{
  const auto output = make_output_file();
  OutputCutter cutter(output.get(), 1000);
  append(output.get(), "hello\n");
  cutter.drain();
  EXPECT_EQ(contents(output.get()), "hello\n");
  EXPECT_EQ(cutter.dropped_bytes(), 0U);
  EXPECT_EQ(cutter.dropped_at(), UINT64_MAX);
}

TEST(OutputCutter, CutsBackToTheHeadAndCountsWhatWent)
{
  const auto output = make_output_file();
  OutputCutter cutter(output.get(), 10);
  append(output.get(), "0123456789abcdef");
  cutter.drain();
  EXPECT_EQ(contents(output.get()), "0123456789");
  // The command's next write lands right after the head.
  append(output.get(), "XYZ");
  EXPECT_EQ(contents(output.get()), "0123456789XYZ");
  cutter.finish();
  EXPECT_EQ(contents(output.get()), "0123456789");
  EXPECT_EQ(cutter.dropped_bytes(), 9U);
  EXPECT_EQ(cutter.dropped_at(), 10U);
  EXPECT_TRUE(cutter.write_error().empty());
}

TEST(OutputCutter, LooksSoonWhileTheFileGrowsAndLessOftenWhenItDoesNot)
{
  const auto output = make_output_file();
  OutputCutter cutter(output.get(), 1000);
  append(output.get(), "a");
  cutter.drain();
  EXPECT_EQ(cutter.next_look(), SizeLookPacer::k_busy_look);
  cutter.drain();
  EXPECT_EQ(cutter.next_look(), SizeLookPacer::k_busy_look * 2);
  for (int i = 0; i < 20; ++i) {
    cutter.drain();
  }
  EXPECT_EQ(cutter.next_look(), SizeLookPacer::k_idle_look);
}

TEST(OutputCutter, StopsAndSaysWhyWhenItCannotCut)
{
  const auto output = make_output_file();
  append(output.get(), "0123456789abcdef");
  // A descriptor that cannot truncate (read-only).
  const std::string path = "/proc/self/fd/" + std::to_string(output.get());
  const UniqueFd read_only(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  ASSERT_TRUE(read_only);
  OutputCutter cutter(read_only.get(), 10);
  cutter.drain();
  EXPECT_FALSE(cutter.write_error().empty());
  EXPECT_EQ(cutter.next_look(), std::nullopt);
  EXPECT_EQ(size_of(output.get()), 16U);
}
