#include <bgtask/core/task_id.hpp>

#include "e2e/e2e_support.hpp"
#include <fstream>
#include <set>

namespace json = boost::json;

using e2e::Result;
using Concurrency = e2e::E2eTest;

TEST_F(Concurrency, FiftyConcurrentStartsNeverCollide)
{
  constexpr int k_tasks = 50;
  std::vector<e2e::Process> starts;
  for (int i = 0; i < k_tasks; ++i) {
    starts.push_back(bg_async({"start", "--name", "n" + std::to_string(i), "--", "true"}));
  }
  std::set<std::string> ids;
  for (auto& process : starts) {
    const Result result = process.finish();
    EXPECT_EQ(result.exit_code, 0) << result;
    EXPECT_TRUE(bgtask::is_task_id(result.line())) << result;
    ids.insert(result.line());
  }
  EXPECT_EQ(ids.size(), static_cast<std::size_t>(k_tasks));
  std::vector<std::string> args = {"wait"};
  args.insert(args.end(), ids.begin(), ids.end());
  const Result waited = bg(args);
  EXPECT_EQ(waited.exit_code, 0) << waited;
  std::size_t records = 0;
  for (const auto& name : dir_entries()) {
    records += name.ends_with(".status.json") ? 1 : 0;
  }
  EXPECT_EQ(records, static_cast<std::size_t>(k_tasks));
  std::set<std::string> names;
  for (const auto& id : ids) {
    const auto r = record(id);
    EXPECT_EQ(r.at("state"), json::value("succeeded")) << id;
    names.insert(std::string(r.at("name").as_string()));
  }
  EXPECT_EQ(names.size(), static_cast<std::size_t>(k_tasks));
}

TEST_F(Concurrency, ListsWhileTasksFinishLeaveEveryRecordIntact)
{
  constexpr int k_tasks = 20;
  constexpr int k_lists = 20;
  std::vector<std::string> ids;
  for (int i = 0; i < k_tasks; ++i) {
    ids.push_back(start({"--cwd", work().string(), "-c",
                         "while [ ! -e gate ]; do sleep 0.01; done; echo " + std::to_string(i)}));
  }
  std::vector<e2e::Process> lists;
  for (int i = 0; i < k_lists / 2; ++i) {
    lists.push_back(bg_async({"list", "--json"}));
  }
  std::ofstream(work() / "gate").close();
  for (int i = 0; i < k_lists / 2; ++i) {
    lists.push_back(bg_async({"list", "--json"}));
  }
  for (auto& process : lists) {
    const Result result = process.finish();
    EXPECT_EQ(result.exit_code, 0) << result;
    const auto value = e2e::parse_json(result.out);
    ASSERT_TRUE(value.is_array()) << result;
    EXPECT_EQ(value.get_array().size(), static_cast<std::size_t>(k_tasks));
    for (const auto& item : value.get_array()) {
      EXPECT_NE(item.at("state"), json::value("corrupt")) << result;
      EXPECT_NE(item.at("state"), json::value("lost")) << result;
    }
  }
  std::vector<std::string> args = {"wait"};
  args.insert(args.end(), ids.begin(), ids.end());
  const Result waited = bg(args);
  EXPECT_EQ(waited.exit_code, 0) << waited;
  for (int i = 0; i < k_tasks; ++i) {
    const auto r = record(ids[static_cast<std::size_t>(i)]);
    EXPECT_EQ(r.at("state"), json::value("succeeded"));
    EXPECT_EQ(r.at("exit_code"), json::value(0));
    EXPECT_EQ(output_of(ids[static_cast<std::size_t>(i)]), std::to_string(i) + "\n");
  }
  for (const auto& name : dir_entries()) {
    EXPECT_FALSE(name.starts_with(".")) << "temp left behind: " << name;
  }
}

TEST_F(Concurrency, ConcurrentProgressReportsAreAllRecorded)
{
  const std::string id = start({"--", "sleep", "60"});
  std::vector<e2e::Process> reports;
  for (int i = 0; i < 10; ++i) {
    reports.push_back(bg_async({"progress", id, "--message", "m" + std::to_string(i)}));
  }
  for (auto& process : reports) {
    const Result result = process.finish();
    EXPECT_EQ(result.exit_code, 0) << result;
  }
  const auto r = record(id);
  std::set<std::string> messages;
  for (const auto& event : r.at("events").as_array()) {
    if (event.at("kind") == json::value("progress")) {
      messages.insert(std::string(event.at("message").as_string()));
    }
  }
  EXPECT_EQ(messages.size(), 10u);
  EXPECT_EQ(r.at("state"), json::value("running"));
}

TEST_F(Concurrency, CleanupAlongsideStartsNeverBreaksThem)
{
  // cleanup is meant to run from cron whenever it likes: a loop of it must
  // not disturb tasks being started meanwhile.
  e2e::Process cleanups = e2e::Process(
    {"/bin/sh", "-c",
     "while [ ! -e \"$2/stop\" ]; do \"$0\" --dir \"$1\" cleanup >/dev/null || exit 1; done",
     e2e::bgtask_binary(), dir().string(), work().string()},
    {});
  constexpr int k_starts = 40;
  std::vector<std::string> ids;
  for (int i = 0; i < k_starts; ++i) {
    const Result result = bg({"start", "--", "true"});
    EXPECT_EQ(result.exit_code, 0) << result;
    ids.push_back(result.line());
  }
  std::ofstream(work() / "stop").close();
  const Result loop = cleanups.finish();
  EXPECT_EQ(loop.exit_code, 0) << loop;
  for (const auto& id : ids) {
    EXPECT_EQ(wait_for(id), 0) << id;
  }
}
