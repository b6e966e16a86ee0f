#include <bgtask/core/task_id.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/task_dir.hpp>

#include "e2e/e2e_support.hpp"
#include <filesystem>
#include <fstream>
#include <vector>

namespace json = boost::json;
namespace fs = std::filesystem;

using e2e::Result;
using Cleanup = e2e::E2eTest;

namespace {

json::object summary_of(const Result& result)
{
  EXPECT_EQ(result.exit_code, 0) << result;
  const auto value = e2e::parse_json(result.out);
  EXPECT_TRUE(value.is_object()) << result;
  return value.is_object() ? value.get_object() : json::object();
}

// Saves a succeeded record with a chosen ID, created and finished at the
// given times, as an older `start` would have left it.
void plant_finished(const fs::path& dir, const std::string& id, bgtask::TimePoint created,
                    bgtask::TimePoint finished)
{
  const auto task_dir = bgtask::TaskDir::open(dir.string());
  bgtask::TaskRecord record;
  record.id = id;
  record.command = {"true"};
  record.cwd = "/";
  record.state = bgtask::TaskState::succeeded;
  record.exit_code = 0;
  record.created_at = created;
  record.started_at = record.created_at;
  record.finished_at = finished;
  bgtask::save_record(task_dir, record);
}

// The same, created and finished the given times ago.
void plant_finished(const fs::path& dir, const std::string& id, std::chrono::hours created_ago,
                    std::chrono::hours finished_ago)
{
  plant_finished(dir, id, bgtask::now() - created_ago, bgtask::now() - finished_ago);
}

} // namespace

class CleanupTest : public e2e::E2eTest
{
protected:
  // Waits for the task to end and its supervisor to exit: cleanup leaves a
  // task alone while its owner still holds it.
  void finish(const std::string& id)
  {
    wait_for(id);
    EXPECT_TRUE(wait_until_released(id)) << id;
  }

  bool has_files(const std::string& id) const
  {
    return fs::exists(record_path(id)) || fs::exists(output_path(id)) || fs::exists(lock_path(id));
  }

  bool has_all_files(const std::string& id) const
  {
    return fs::exists(record_path(id)) && fs::exists(output_path(id)) && fs::exists(lock_path(id));
  }
};

TEST_F(CleanupTest, SparesTasksThatFinishedRecentlyByDefault)
{
  const std::string a = start({"--", "true"});
  const std::string b = start({"--", "false"});
  finish(a);
  finish(b);
  const Result result = bg({"cleanup"});
  EXPECT_EQ(result.exit_code, 0) << result;
  EXPECT_EQ(result.out, "");
  EXPECT_TRUE(has_all_files(a));
  EXPECT_TRUE(has_all_files(b));
  EXPECT_EQ(summary_of(bg({"cleanup", "--json", "--older-than", "1h"})).at("matched"),
            json::value(0));
}

TEST_F(CleanupTest, RemovesFinishedTasksButNeverARunningOne)
{
  const std::string ok = start({"-c", "echo hello"});
  const std::string bad = start({"-c", "echo oops; exit 1"});
  const std::string running = start({"--", "sleep", "60"});
  finish(ok);
  finish(bad);
  const auto summary = summary_of(bg({"cleanup", "--json", "--older-than", "0s"}));
  EXPECT_EQ(summary.at("matched"), json::value(2));
  EXPECT_EQ(summary.at("removed"), json::value(2));
  EXPECT_EQ(summary.at("skipped_running"), json::value(1));
  EXPECT_EQ(summary.at("dry_run"), json::value(false));
  ASSERT_TRUE(summary.at("bytes_freed").is_number());
  EXPECT_GE(summary.at("bytes_freed").to_number<double>(), 11.0); // at least the two outputs
  EXPECT_FALSE(has_files(ok));
  EXPECT_FALSE(has_files(bad));
  EXPECT_TRUE(has_all_files(running));
  EXPECT_EQ(state_of(running), "running");
  EXPECT_EQ(task_entries(), (std::vector<std::string>{running + ".lock", running + ".output",
                                                      running + ".status.json"}));
}

TEST_F(CleanupTest, PrintsWhatItRemoved)
{
  const std::string id = start({"--", "true"});
  finish(id);
  const Result result = bg({"cleanup", "--older-than", "0s"});
  EXPECT_EQ(result.exit_code, 0) << result;
  EXPECT_EQ(result.out, "removed " + id + " succeeded\n");
}

TEST_F(CleanupTest, RemovesOnlyTheGivenStates)
{
  const std::string ok = start({"--", "true"});
  const std::string bad = start({"--", "false"});
  const std::string cancelled = start({"--", "sleep", "60"});
  finish(ok);
  finish(bad);
  EXPECT_EQ(bg({"cancel", cancelled}).exit_code, 0);
  EXPECT_TRUE(wait_until_released(cancelled));
  const auto summary =
    summary_of(bg({"cleanup", "--json", "--older-than", "0s", "--state", "failed,cancelled"}));
  EXPECT_EQ(summary.at("removed"), json::value(2));
  EXPECT_TRUE(has_all_files(ok));
  EXPECT_FALSE(has_files(bad));
  EXPECT_FALSE(has_files(cancelled));
}

TEST_F(CleanupTest, KeepsTheNewestFinishedTasks)
{
  std::vector<std::string> ids;
  for (int i = 0; i < 3; ++i) {
    ids.push_back(start({"--", "true"}));
    finish(ids.back());
  }
  const std::string running = start({"--", "sleep", "60"});
  const auto summary = summary_of(bg({"cleanup", "--json", "--older-than", "0s", "--keep", "1"}));
  EXPECT_EQ(summary.at("removed"), json::value(2));
  EXPECT_FALSE(has_files(ids[0]));
  EXPECT_FALSE(has_files(ids[1]));
  EXPECT_TRUE(has_all_files(ids[2]));
  EXPECT_TRUE(has_all_files(running));
}

TEST_F(CleanupTest, RemovesNothingInADryRun)
{
  const std::string a = start({"--", "true"});
  const std::string b = start({"--", "false"});
  finish(a);
  finish(b);
  const auto before = dir_entries();
  const Result text = bg({"cleanup", "--dry-run", "--older-than", "0s"});
  EXPECT_EQ(text.exit_code, 0) << text;
  EXPECT_EQ(text.out, "would remove " + a + " succeeded\nwould remove " + b + " failed\n");
  const auto summary = summary_of(bg({"cleanup", "--dry-run", "--json", "--older-than", "0s"}));
  EXPECT_EQ(summary.at("matched"), json::value(2));
  EXPECT_EQ(summary.at("removed"), json::value(0));
  EXPECT_EQ(summary.at("dry_run"), json::value(true));
  EXPECT_EQ(dir_entries(), before);
}

TEST_F(CleanupTest, PrintsAllSummaryKeys)
{
  const auto summary = summary_of(bg({"cleanup", "--json"}));
  for (const char* key : {"matched", "removed", "skipped_running", "bytes_freed", "dry_run"}) {
    EXPECT_TRUE(summary.contains(key)) << key;
  }
  EXPECT_EQ(summary.size(), 5u);
}

TEST_F(CleanupTest, RefusesBadFilters)
{
  const std::string id = start({"--", "true"});
  finish(id);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"cleanup", "--older-than", "soon"},
        {"cleanup", "--state", "bogus"},
        {"cleanup", "--keep", "-1"},
        {"cleanup", "--keep", "x"}}) {
    EXPECT_EQ(bg(args).exit_code, 2) << args[1];
  }
  EXPECT_TRUE(has_all_files(id));
}

TEST_F(CleanupTest, JudgesAgeByFinishTime)
{
  using std::chrono::hours;
  plant_finished(dir(), "0000000000a1", hours(24 * 30), hours(24 * 10)); // finished 10 days ago
  plant_finished(dir(), "0000000000a2", hours(24 * 30), hours(2)); // long run, finished lately
  plant_finished(dir(), "0000000000a3", hours(3), hours(1));
  const Result by_default = bg({"cleanup"});
  EXPECT_EQ(by_default.exit_code, 0) << by_default;
  EXPECT_EQ(by_default.out, "removed 0000000000a1 succeeded\n");
  EXPECT_FALSE(has_files("0000000000a1"));
  EXPECT_TRUE(fs::exists(record_path("0000000000a2")));
  const auto summary = summary_of(bg({"cleanup", "--json", "--older-than", "90m"}));
  EXPECT_EQ(summary.at("removed"), json::value(1));
  EXPECT_FALSE(has_files("0000000000a2"));
  EXPECT_TRUE(fs::exists(record_path("0000000000a3")));
}

// Thousands of tasks are read and removed on several threads: every chosen
// task goes, whole, and is reported once, oldest first; the rest stay whole.
TEST_F(CleanupTest, RemovesThousandsOfTasksAndReportsEachOnceInOrder)
{
  constexpr int k_tasks = 2600;
  constexpr int k_kept = 100;
  const auto oldest = bgtask::now() - std::chrono::hours(24 * 30);
  std::vector<std::string> ids;
  for (int i = 0; i < k_tasks; ++i) {
    const auto created = oldest + std::chrono::seconds(10 * i);
    ids.push_back(bgtask::make_task_id(created));
    plant_finished(dir(), ids.back(), created, created + std::chrono::seconds(1));
    std::ofstream(output_path(ids.back())) << "output of task " << i << '\n';
  }
  const Result result = bg({"cleanup", "--keep", std::to_string(k_kept)});
  ASSERT_EQ(result.exit_code, 0) << result;
  std::string expected;
  for (int i = 0; i < k_tasks - k_kept; ++i) {
    expected += "removed " + ids[i] + " succeeded\n";
  }
  EXPECT_EQ(result.out, expected);
  for (int i = 0; i < k_tasks; ++i) {
    if (i < k_tasks - k_kept) {
      EXPECT_FALSE(has_files(ids[i])) << ids[i];
    } else {
      EXPECT_TRUE(fs::exists(record_path(ids[i])) && fs::exists(output_path(ids[i]))) << ids[i];
    }
  }
}
