#include <bgtask/proc/cgroup.hpp>

#include <gtest/gtest.h>

#include "temp_root.hpp"
#include <filesystem>

namespace fs = std::filesystem;

TEST(Cgroup, NoLimitsNeedNoCgroup)
{
  EXPECT_EQ(bgtask::cgroup_unavailable_reason(bgtask::CgroupLimits{}), "");
  EXPECT_FALSE(bgtask::CgroupLimits{}.any());
  EXPECT_TRUE((bgtask::CgroupLimits{std::nullopt, 5, std::nullopt}.any()));
}

// A record's `cgroup` is read back from disk: only the directories create()
// makes (.../bgtask/NAME) are ever removed, whatever else it names.
TEST(Cgroup, RemovesOnlyWhatCreateMakesFromARecordsPaths)
{
  TempRoot root("cgroup");
  const fs::path ours = root.path() / "bgtask" / "2nk5t7f30b55";
  const fs::path other = root.path() / "elsewhere" / "2nk5t7f30b55";
  const fs::path dotted = root.path() / "bgtask" / ".." / "elsewhere" / "x";
  fs::create_directories(ours);
  fs::create_directories(other);
  fs::create_directories(root.path() / "elsewhere" / "x");
  bgtask::TaskCgroup::remove_leftover(other.string() + ";relative/bgtask/x;" + dotted.string() +
                                      ";" + ours.string());
  EXPECT_FALSE(fs::exists(ours));
  EXPECT_TRUE(fs::exists(other));
  EXPECT_TRUE(fs::exists(root.path() / "elsewhere" / "x"));
}

TEST(Cgroup, LeavesADirectoryThatStillHoldsSomething)
{
  TempRoot root("cgroup");
  const fs::path ours = root.path() / "bgtask" / "2nk5t7f30b55";
  fs::create_directories(ours / "inside");
  bgtask::TaskCgroup::remove_leftover(ours.string());
  EXPECT_TRUE(fs::exists(ours / "inside"));
}
