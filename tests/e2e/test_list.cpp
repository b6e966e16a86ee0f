#include <bgtask/core/record_json.hpp>
#include <bgtask/core/task_id.hpp>

#include "e2e/e2e_support.hpp"
#include <filesystem>
#include <fstream>
#include <sstream>

namespace json = boost::json;

using e2e::Result;
using List = e2e::E2eTest;

namespace {

std::vector<std::string> lines_of(const std::string& text)
{
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    lines.push_back(line);
  }
  return lines;
}

std::vector<std::string> words_of(const std::string& line)
{
  std::vector<std::string> words;
  std::istringstream in(line);
  for (std::string word; in >> word;) {
    words.push_back(word);
  }
  return words;
}

// The IDs of a `list --json` output, in order.
std::vector<std::string> listed_ids(const Result& result)
{
  EXPECT_EQ(result.exit_code, 0) << result;
  const auto value = e2e::parse_json(result.out);
  EXPECT_TRUE(value.is_array()) << result;
  std::vector<std::string> ids;
  if (value.is_array()) {
    for (const auto& item : value.get_array()) {
      ids.emplace_back(item.at("id").as_string());
    }
  }
  return ids;
}

} // namespace

TEST_F(List, ShowsOnlyTheHeaderForAnEmptyDirectory)
{
  const Result result = bg({"list"});
  EXPECT_EQ(result.exit_code, 0) << result;
  EXPECT_EQ(words_of(result.out),
            (std::vector<std::string>{"ID", "STATE", "EXIT", "STARTED", "ELAPSED", "NAME"}));
  const Result json_result = bg({"list", "--json"});
  EXPECT_EQ(json_result.exit_code, 0) << json_result;
  EXPECT_EQ(json_result.out, "[]\n");
}

TEST_F(List, ShowsTasksOldestFirstInTheDocumentedColumns)
{
  const std::string first = start({"--name", "alpha", "--", "true"});
  const std::string second = start({"--name", "beta", "--", "false"});
  const std::string third = start({"--", "sleep", "60"});
  EXPECT_EQ(wait_for(first), 0);
  EXPECT_EQ(wait_for(second), 1);
  const Result result = bg({"list"});
  ASSERT_EQ(result.exit_code, 0) << result;
  const auto lines = lines_of(result.out);
  ASSERT_EQ(lines.size(), 4u) << result;
  EXPECT_EQ(words_of(lines[0]),
            (std::vector<std::string>{"ID", "STATE", "EXIT", "STARTED", "ELAPSED", "NAME"}));
  const auto row1 = words_of(lines[1]);
  const auto row2 = words_of(lines[2]);
  const auto row3 = words_of(lines[3]);
  ASSERT_GE(row1.size(), 6u);
  ASSERT_GE(row2.size(), 6u);
  ASSERT_GE(row3.size(), 6u);
  EXPECT_EQ(row1[0], first);
  EXPECT_EQ(row1[1], "succeeded");
  EXPECT_EQ(row1[2], "0");
  EXPECT_EQ(row1.back(), "alpha");
  EXPECT_EQ(row2[0], second);
  EXPECT_EQ(row2[1], "failed");
  EXPECT_EQ(row2[2], "1");
  EXPECT_EQ(row2.back(), "beta");
  EXPECT_EQ(row3[0], third);
  EXPECT_EQ(row3[1], "running");
  EXPECT_EQ(row3[2], "-");
  EXPECT_EQ(row3.back(), "60"); // unnamed: the command
  // Columns line up: every row's STATE starts where the header's does.
  const auto state_column = lines[0].find("STATE");
  for (std::size_t i = 1; i < lines.size(); ++i) {
    EXPECT_EQ(lines[i].find_first_not_of(' ', lines[i].find(' ')), state_column) << lines[i];
  }
}

TEST_F(List, PrintsAJsonArrayOfRecords)
{
  const std::string first = start({"--name", "alpha", "--", "true"});
  const std::string second = start({"--", "sleep", "60"});
  EXPECT_EQ(wait_for(first), 0);
  const Result result = bg({"list", "--json"});
  ASSERT_EQ(result.exit_code, 0) << result;
  const auto value = e2e::parse_json(result.out);
  ASSERT_TRUE(value.is_array());
  const auto& array = value.get_array();
  ASSERT_EQ(array.size(), 2u);
  EXPECT_EQ(array[0].at("id"), json::value(first));
  EXPECT_EQ(array[0].at("state"), json::value("succeeded"));
  EXPECT_EQ(array[0].at("name"), json::value("alpha"));
  EXPECT_EQ(array[0].at("schema"), json::value(1));
  EXPECT_EQ(array[1].at("id"), json::value(second));
  EXPECT_EQ(array[1].at("state"), json::value("running"));
  EXPECT_EQ(result.err, "");
}

TEST_F(List, FiltersByState)
{
  const std::string ok = start({"--", "true"});
  const std::string bad = start({"--", "false"});
  const std::string running = start({"--", "sleep", "60"});
  wait_for(ok);
  wait_for(bad);
  EXPECT_EQ(listed_ids(bg({"list", "--json", "--state", "failed"})),
            (std::vector<std::string>{bad}));
  EXPECT_EQ(listed_ids(bg({"list", "--json", "--state", "running,succeeded"})),
            (std::vector<std::string>{ok, running}));
  EXPECT_EQ(listed_ids(bg({"list", "--json", "--state", "lost"})), (std::vector<std::string>{}));
  const Result text = bg({"list", "--state", "failed"});
  EXPECT_EQ(lines_of(text.out).size(), 2u) << text;
  EXPECT_EQ(bg({"list", "--state", "exploded"}).exit_code, 2);
  EXPECT_EQ(bg({"list", "--state", ""}).exit_code, 2);
}

TEST_F(List, FiltersByName)
{
  const std::string a1 = start({"--name", "a", "--", "true"});
  const std::string b = start({"--name", "b", "--", "true"});
  const std::string a2 = start({"--name", "a", "--", "sleep", "60"});
  const std::string unnamed = start({"--", "true"});
  EXPECT_EQ(listed_ids(bg({"list", "--json", "--name", "a"})), (std::vector<std::string>{a1, a2}));
  EXPECT_EQ(listed_ids(bg({"list", "--json", "--name", "b"})), (std::vector<std::string>{b}));
  EXPECT_EQ(listed_ids(bg({"list", "--json", "--name", "c"})), (std::vector<std::string>{}));
}

TEST_F(List, KeepsTheNewestWithLimit)
{
  std::vector<std::string> ids;
  for (int i = 0; i < 4; ++i) {
    ids.push_back(start({"--name", i % 2 == 0 ? "even" : "odd", "--", "true"}));
  }
  EXPECT_EQ(listed_ids(bg({"list", "--json", "--limit", "2"})),
            (std::vector<std::string>{ids[2], ids[3]}));
  EXPECT_EQ(listed_ids(bg({"list", "--json", "--limit", "10"})), ids);
  EXPECT_EQ(listed_ids(bg({"list", "--json", "--limit", "0"})), (std::vector<std::string>{}));
  EXPECT_EQ(listed_ids(bg({"list", "--json", "--limit", "1", "--name", "even"})),
            (std::vector<std::string>{ids[2]}));
  EXPECT_EQ(bg({"list", "--limit", "-1"}).exit_code, 2);
  EXPECT_EQ(bg({"list", "--limit", "two"}).exit_code, 2);
}

// More records than one reader takes (2000 each): list reads them on
// several threads (and scripts/test --tsan runs this under ThreadSanitizer).
TEST_F(List, ReadsThousandsOfRecordsOnSeveralThreadsInOrder)
{
  constexpr int k_tasks = 4500;
  const auto oldest = bgtask::now() - std::chrono::hours(24);
  std::vector<std::string> ids;
  for (int i = 0; i < k_tasks; ++i) {
    bgtask::TaskRecord record;
    record.created_at = oldest + std::chrono::seconds(10 * i);
    record.id = bgtask::make_task_id(record.created_at);
    record.command = {"true"};
    record.cwd = "/";
    record.state = i % 3 == 0 ? bgtask::TaskState::failed : bgtask::TaskState::succeeded;
    record.exit_code = i % 3 == 0 ? 1 : 0;
    record.finished_at = record.created_at + std::chrono::seconds(1);
    std::ofstream(record_path(record.id)) << bgtask::encode_record(record);
    ids.push_back(record.id);
  }
  EXPECT_EQ(listed_ids(bg({"list", "--json"})), ids);
  const Result summary = bg({"list", "--summary", "--json"});
  ASSERT_EQ(summary.exit_code, 0) << summary;
  const auto counts = e2e::parse_json(summary.out);
  ASSERT_TRUE(counts.is_object()) << summary;
  EXPECT_EQ(counts.at("failed").to_number<int>(), k_tasks / 3) << summary;
  EXPECT_EQ(counts.at("succeeded").to_number<int>(), k_tasks - k_tasks / 3) << summary;
  // The records are all alike (encode_record wrote them): the schema check at
  // the end of every test reads the last few rather than thousands.
  for (std::size_t i = 0; i + 10 < ids.size(); ++i) {
    std::filesystem::remove(record_path(ids[i]));
  }
}
