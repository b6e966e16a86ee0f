#include "e2e/e2e_support.hpp"
#include <filesystem>

using e2e::Result;
using CleanupMaxBytes = e2e::E2eTest;

TEST_F(CleanupMaxBytes, RemovesTheOldestFinishedTasksUntilTheRestFits)
{
  std::vector<std::string> ids;
  for (int i = 0; i < 3; ++i) {
    ids.push_back(start({"-c", "head -c 100000 /dev/zero"}));
    ASSERT_EQ(wait_for(ids.back()), 0);
  }
  const std::string running = start({"-c", "head -c 100000 /dev/zero; sleep 60"});
  ASSERT_TRUE(wait_for_output(running, std::string(100, '\0')));
  // Each finished task takes a little over 100 kB; 150 kB leaves room for one.
  const Result dry = bg({"cleanup", "--max-bytes", "150000", "--dry-run"});
  ASSERT_EQ(dry.exit_code, 0) << dry;
  EXPECT_EQ(dry.out,
            "would remove " + ids[0] + " succeeded\nwould remove " + ids[1] + " succeeded\n");
  const Result result = bg({"cleanup", "--max-bytes", "150000"});
  ASSERT_EQ(result.exit_code, 0) << result;
  EXPECT_FALSE(std::filesystem::exists(record_path(ids[0])));
  EXPECT_FALSE(std::filesystem::exists(record_path(ids[1])));
  EXPECT_TRUE(std::filesystem::exists(record_path(ids[2])));
  EXPECT_TRUE(std::filesystem::exists(record_path(running)));
  // Already small enough: nothing more goes.
  EXPECT_EQ(bg({"cleanup", "--max-bytes", "150000"}).out, "");
}
