#include <bgtask/store/record_store.hpp>
#include <bgtask/store/task_dir.hpp>

#include "e2e/e2e_support.hpp"

namespace json = boost::json;

using e2e::Result;
using ForeignHost = e2e::E2eTest;
using namespace std::chrono_literals;

namespace {

constexpr const char* k_id = "0000000000aa";
constexpr int k_no_such_pid = 0x3ffff00; // above the kernel's pid limit

// A running record written by a supervisor on another host, as a task
// directory on a shared filesystem would show it.
void plant_foreign_record(const std::filesystem::path& dir)
{
  const auto task_dir = bgtask::TaskDir::open(dir.string());
  bgtask::TaskRecord record;
  record.id = k_id;
  record.command = {"sleep", "600"};
  record.cwd = "/";
  record.state = bgtask::TaskState::running;
  record.created_at = bgtask::now();
  record.started_at = record.created_at;
  // Pids that cannot exist here, so nothing local is ever taken for the task.
  record.owner = bgtask::OwnerIdentity{k_no_such_pid, "00112233445566778899aabbccddeeff", 1,
                                       "00000000-0000-0000-0000-000000000000", "elsewhere.example"};
  record.child = bgtask::ChildIdentity{k_no_such_pid + 1, k_no_such_pid + 1, 1};
  bgtask::save_record(task_dir, record);
}

} // namespace

TEST_F(ForeignHost, LeavesTheRecordAsItIs)
{
  plant_foreign_record(dir());
  const std::string before = record_bytes(k_id);
  const Result list = bg({"list"});
  EXPECT_EQ(list.exit_code, 0) << list;
  EXPECT_NE(list.out.find("running"), std::string::npos) << list;
  const Result status = bg({"status", k_id});
  EXPECT_EQ(status.exit_code, 0) << status;
  EXPECT_NE(status.out.find("running (on elsewhere.example)"), std::string::npos) << status;
  const Result waited = bg({"wait", "--timeout", "100ms", k_id});
  EXPECT_EQ(waited.exit_code, 4) << waited;
  EXPECT_EQ(record_bytes(k_id), before);
}

TEST_F(ForeignHost, IsNeverCleanedUp)
{
  plant_foreign_record(dir());
  const Result result = bg({"cleanup", "--json", "--older-than", "0s"});
  EXPECT_EQ(result.exit_code, 0) << result;
  EXPECT_EQ(e2e::parse_json(result.out).at("skipped_running"), json::value(1));
  EXPECT_TRUE(std::filesystem::exists(record_path(k_id)));
}

TEST_F(ForeignHost, RefusesToCancelInsteadOfWaitingForever)
{
  plant_foreign_record(dir());
  const std::string before = record_bytes(k_id);
  e2e::RunOptions options;
  options.limit = 20s;
  const Result result = bg({"cancel", "--grace", "100ms", k_id}, options);
  ASSERT_FALSE(result.hung) << result;
  EXPECT_EQ(result.exit_code, 1) << result;
  EXPECT_NE(result.err.find("elsewhere.example"), std::string::npos) << result;
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(record_bytes(k_id), before);
}

TEST_F(ForeignHost, CancelsNothingWhenOneOfTheTasksIsForeign)
{
  plant_foreign_record(dir());
  const std::string local = start({"--", "sleep", "60"});
  e2e::RunOptions options;
  options.limit = 20s;
  const Result result = bg({"cancel", "--grace", "100ms", local, k_id}, options);
  ASSERT_FALSE(result.hung) << result;
  EXPECT_EQ(result.exit_code, 1) << result;
  EXPECT_EQ(state_of(local), "running");
}
