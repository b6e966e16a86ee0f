#include "e2e/e2e_support.hpp"
#include <fstream>

namespace json = boost::json;

using e2e::Result;
using CorruptRecord = e2e::E2eTest;

namespace {

constexpr const char* k_garbage = "{\"schema\":1,\"id\":\x01 not json \xff\n";

} // namespace

TEST_F(CorruptRecord, IsListedExplainedAndNeverRemoved)
{
  const std::string good = start({"--", "true"});
  const std::string bad = start({"--", "true"});
  EXPECT_EQ(wait_for(good), 0);
  EXPECT_EQ(wait_for(bad), 0);
  std::ofstream(record_path(bad), std::ios::binary | std::ios::trunc) << k_garbage;

  const Result list = bg({"list"});
  EXPECT_EQ(list.exit_code, 0) << list;
  EXPECT_NE(list.out.find(bad + "  corrupt"), std::string::npos) << list;
  EXPECT_NE(list.out.find(good), std::string::npos) << list;

  const Result list_json = bg({"list", "--json"});
  EXPECT_EQ(list_json.exit_code, 0) << list_json;
  const auto array = e2e::parse_json(list_json.out);
  ASSERT_TRUE(array.is_array());
  ASSERT_EQ(array.get_array().size(), 2u);
  EXPECT_EQ(array.get_array()[1].at("id"), json::value(bad));
  EXPECT_EQ(array.get_array()[1].at("state"), json::value("corrupt"));
  EXPECT_TRUE(array.get_array()[1].at("error").is_string());
  // The same keys as a readable record, `unreadable` saying why.
  const auto& readable = array.get_array()[0].as_object();
  const auto& unreadable = array.get_array()[1].as_object();
  EXPECT_EQ(readable.size(), unreadable.size()) << list_json;
  for (const auto& entry : readable) {
    EXPECT_TRUE(unreadable.contains(entry.key())) << entry.key();
  }
  EXPECT_TRUE(readable.at("unreadable").is_null());
  EXPECT_EQ(unreadable.at("unreadable"), unreadable.at("error"));
  EXPECT_NE(unreadable.at("unreadable").as_string().find("invalid JSON"), std::string::npos);
  EXPECT_TRUE(unreadable.at("command").is_null());
  EXPECT_EQ(bg({"list", "--json", "--state", "corrupt"}).out.find(good), std::string::npos);

  const Result status = bg({"status", bad});
  EXPECT_EQ(status.exit_code, 1) << status;
  EXPECT_NE(status.err.find("corrupt"), std::string::npos) << status;
  EXPECT_NE(status.err.find(bad), std::string::npos) << status;
  const Result status_json = bg({"status", "--json", good, bad});
  EXPECT_EQ(status_json.exit_code, 1) << status_json;
  const auto statuses = e2e::parse_json(status_json.out);
  ASSERT_TRUE(statuses.is_array()) << status_json;
  EXPECT_EQ(statuses.get_array().size(), 2u);

  EXPECT_TRUE(wait_until_released(good));
  const Result cleanup = bg({"cleanup", "--older-than", "0s", "--json"});
  EXPECT_EQ(cleanup.exit_code, 0) << cleanup;
  EXPECT_TRUE(std::filesystem::exists(record_path(bad)));
  EXPECT_FALSE(std::filesystem::exists(record_path(good)));
  EXPECT_EQ(record_bytes(bad), k_garbage);

  for (const std::vector<std::string>& args : {std::vector<std::string>{"wait", bad},
                                               {"output", bad},
                                               {"cancel", bad},
                                               {"progress", bad, "--percent", "1"}}) {
    const Result result = bg(args);
    EXPECT_EQ(result.exit_code, 1) << args.front() << ": " << result;
    EXPECT_NE(result.err.find(bad), std::string::npos) << args.front() << ": " << result;
    EXPECT_NE(result.err.find("invalid JSON"), std::string::npos) << args.front() << ": " << result;
  }
  EXPECT_EQ(record_bytes(bad), k_garbage);
}

TEST_F(CorruptRecord, CoversEmptyAndTruncatedRecords)
{
  const std::string empty = start({"--", "true"});
  const std::string truncated = start({"--", "true"});
  EXPECT_EQ(wait_for(empty), 0);
  EXPECT_EQ(wait_for(truncated), 0);
  const std::string full = record_bytes(truncated);
  std::ofstream(record_path(empty), std::ios::trunc).close();
  std::ofstream(record_path(truncated), std::ios::binary | std::ios::trunc)
    << full.substr(0, full.size() / 2);
  const Result list = bg({"list", "--json"});
  EXPECT_EQ(list.exit_code, 0) << list;
  const auto array = e2e::parse_json(list.out);
  ASSERT_TRUE(array.is_array());
  for (const auto& item : array.get_array()) {
    EXPECT_EQ(item.at("state"), json::value("corrupt"));
  }
  EXPECT_EQ(bg({"status", empty}).exit_code, 1);
  EXPECT_EQ(bg({"status", truncated}).exit_code, 1);
}

TEST_F(CorruptRecord, CoversARecordReplacedBySomethingElse)
{
  const std::string link = start({"--", "true"});
  const std::string fifo = start({"--", "true"});
  EXPECT_EQ(wait_for(link), 0);
  EXPECT_EQ(wait_for(fifo), 0);
  std::filesystem::remove(record_path(link));
  std::filesystem::create_symlink(record_path(fifo), record_path(link));
  std::filesystem::remove(record_path(fifo));
  ASSERT_EQ(::mkfifo(record_path(fifo).c_str(), 0600), 0);
  const Result list = bg({"list", "--json"});
  EXPECT_FALSE(list.hung) << list;
  EXPECT_EQ(list.exit_code, 0) << list;
  EXPECT_EQ(bg({"status", link}).exit_code, 1);
  EXPECT_EQ(bg({"status", fifo}).exit_code, 1);
  EXPECT_EQ(bg({"cleanup", "--older-than", "0s"}).exit_code, 0);
  EXPECT_TRUE(std::filesystem::is_symlink(record_path(link)));
  EXPECT_TRUE(std::filesystem::exists(record_path(fifo)));
}
