#include <bgtask/core/record_json.hpp>
#include <bgtask/exec/task_waiter.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/store/task_files.hpp>
#include <bgtask/util/error.hpp>

#include <gtest/gtest.h>

#include "temp_root.hpp"
#include <filesystem>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

using bgtask::LoadStatus;
using bgtask::TaskRecord;
using bgtask::TaskState;

namespace {

TaskRecord record_with_id(std::string id)
{
  TaskRecord r;
  r.id = std::move(id);
  r.name = "store test";
  r.command = {"echo", "hello"};
  r.cwd = "/";
  r.state = TaskState::succeeded;
  r.exit_code = 0;
  r.created_at = bgtask::now();
  r.started_at = r.created_at;
  r.finished_at = r.created_at;
  r.duration_s = 0;
  return r;
}

std::vector<std::string> entries_of(const fs::path& dir)
{
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

} // namespace

class RecordStore : public ::testing::Test
{
protected:
  void SetUp() override
  {
    m_path = m_root / "tasks";
    m_dir.emplace(bgtask::TaskDir::open(m_path.string()));
  }

  void TearDown() override { m_dir.reset(); }

  const bgtask::TaskDir& dir() const { return *m_dir; }

  fs::path record_path(const std::string& id) const
  {
    return m_path / bgtask::status_file_name(id);
  }

  void write_file(const fs::path& path, std::string_view content)
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << content;
  }

  bgtask::LoadedRecord expect_corrupt(const std::string& id, std::string_view reason_part)
  {
    auto loaded = bgtask::load_record(dir(), id);
    EXPECT_EQ(loaded.status, LoadStatus::corrupt);
    EXPECT_NE(loaded.reason.find(reason_part), std::string::npos) << loaded.reason;
    return loaded;
  }

  // The usage error resolve_task_id throws for `text`.
  std::string resolve_error(std::string_view text)
  {
    try {
      const auto id = bgtask::resolve_task_id(dir(), text);
      ADD_FAILURE() << "resolved '" << text << "' to " << id;
    } catch (const bgtask::Error& e) {
      EXPECT_EQ(e.code(), bgtask::ExitCode::usage);
      return e.what();
    }
    return {};
  }

  TempRoot m_root{"store"};
  fs::path m_path;
  std::optional<bgtask::TaskDir> m_dir;
};

TEST_F(RecordStore, LoadsWhatItSaved)
{
  TaskRecord record = record_with_id("01hx2k3m4n5p");
  bgtask::save_record(dir(), record);
  const auto loaded = bgtask::load_record(dir(), record.id);
  ASSERT_EQ(loaded.status, LoadStatus::ok) << loaded.reason;
  EXPECT_EQ(loaded.id, record.id);
  EXPECT_EQ(bgtask::encode_record(loaded.record), bgtask::encode_record(record));
}

TEST_F(RecordStore, BumpsTheGenerationOnEverySave)
{
  TaskRecord record = record_with_id("01hx2k3m4n5p");
  bgtask::save_record(dir(), record);
  const auto first = record.generation;
  bgtask::save_record(dir(), record);
  EXPECT_EQ(record.generation, first + 1);
  EXPECT_EQ(bgtask::load_record(dir(), record.id).record.generation, first + 1);
}

TEST_F(RecordStore, WritesPrivateFilesAndLeavesNoTemps)
{
  TaskRecord record = record_with_id("01hx2k3m4n5p");
  for (int i = 0; i < 5; ++i) {
    bgtask::save_record(dir(), record);
  }
  EXPECT_EQ(entries_of(m_path), std::vector<std::string>{"01hx2k3m4n5p.status.json"});
  struct stat st
  {
  };
  ASSERT_EQ(::stat(record_path(record.id).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
}

TEST_F(RecordStore, ReportsAMissingRecord)
{
  const auto loaded = bgtask::load_record(dir(), "01hx2k3m4n5p");
  EXPECT_EQ(loaded.status, LoadStatus::missing);
}

TEST_F(RecordStore, FindsGarbageCorrupt)
{
  write_file(record_path("01hx2k3m4n5p"), "this is not a record\n");
  expect_corrupt("01hx2k3m4n5p", "invalid JSON");
  write_file(record_path("01hx2k3m4n5p"), "");
  expect_corrupt("01hx2k3m4n5p", "empty");
  write_file(record_path("01hx2k3m4n5p"), std::string(512, '\0'));
  expect_corrupt("01hx2k3m4n5p", "JSON");
}

TEST_F(RecordStore, FindsASymlinkCorrupt)
{
  TaskRecord record = record_with_id("01hx2k3m4n5q");
  bgtask::save_record(dir(), record);
  fs::create_symlink(record_path("01hx2k3m4n5q"), record_path("01hx2k3m4n5p"));
  expect_corrupt("01hx2k3m4n5p", "symbolic link");
  fs::create_symlink("/nonexistent/target", record_path("01hx2k3m4n5r"));
  expect_corrupt("01hx2k3m4n5r", "symbolic link");
}

TEST_F(RecordStore, FindsAFifoCorruptWithoutBlocking)
{
  ASSERT_EQ(::mkfifo(record_path("01hx2k3m4n5p").c_str(), 0600), 0);
  expect_corrupt("01hx2k3m4n5p", "not a regular file");
}

TEST_F(RecordStore, FindsADirectoryCorrupt)
{
  fs::create_directory(record_path("01hx2k3m4n5p"));
  expect_corrupt("01hx2k3m4n5p", "not a regular file");
}

TEST_F(RecordStore, FindsARecordLargerThanTheLimitCorrupt)
{
  std::string text = bgtask::encode_record(record_with_id("01hx2k3m4n5p"));
  text.insert(1, "\"padding\":\"" + std::string(bgtask::k_max_record_bytes, 'x') + "\",");
  write_file(record_path("01hx2k3m4n5p"), text);
  expect_corrupt("01hx2k3m4n5p", "1 MiB");
}

TEST_F(RecordStore, FindsARecordNamingAnotherTaskCorrupt)
{
  write_file(record_path("01hx2k3m4n5p"), bgtask::encode_record(record_with_id("01hx2k3m4n5q")));
  expect_corrupt("01hx2k3m4n5p", "01hx2k3m4n5q");
}

TEST_F(RecordStore, FindsARecordOwnedByAnotherUserCorrupt)
{
  if (::geteuid() != 0) {
    GTEST_SKIP() << "needs root to give a file away";
  }
  TaskRecord record = record_with_id("01hx2k3m4n5p");
  bgtask::save_record(dir(), record);
  ASSERT_EQ(::chown(record_path(record.id).c_str(), 65534, 65534), 0);
  expect_corrupt(record.id, "owned by uid 65534");
}

TEST_F(RecordStore, NeverDeletesACorruptRecord)
{
  write_file(record_path("01hx2k3m4n5p"), "{garbage");
  expect_corrupt("01hx2k3m4n5p", "JSON");
  EXPECT_TRUE(fs::exists(record_path("01hx2k3m4n5p")));
}

TEST_F(RecordStore, ScansRecordsOldestFirstIgnoringOtherFiles)
{
  for (const char* id : {"01hx2k3m4n5r", "01hx2k3m4n5p", "01hx2k3m4n5q"}) {
    TaskRecord record = record_with_id(id);
    bgtask::save_record(dir(), record);
  }
  write_file(m_path / "01hx2k3m4n5s.output", "out");
  write_file(m_path / "01hx2k3m4n5t.lock", "");
  write_file(m_path / ".01hx2k3m4n5v.status.json.0123456789abcdef.tmp", "{");
  write_file(m_path / "notes.txt", "");
  EXPECT_EQ(bgtask::scan_task_ids(dir()),
            (std::vector<std::string>{"01hx2k3m4n5p", "01hx2k3m4n5q", "01hx2k3m4n5r"}));
}

TEST_F(RecordStore, ResolvesAFullId)
{
  TaskRecord record = record_with_id("01hx2k3m4n5p");
  bgtask::save_record(dir(), record);
  EXPECT_EQ(bgtask::resolve_task_id(dir(), "01hx2k3m4n5p"), "01hx2k3m4n5p");
}

TEST_F(RecordStore, ResolvesAFullIdOfACorruptRecord)
{
  write_file(record_path("01hx2k3m4n5p"), "garbage");
  EXPECT_EQ(bgtask::resolve_task_id(dir(), "01hx2k3m4n5p"), "01hx2k3m4n5p");
}

TEST_F(RecordStore, ResolvesAUniquePrefix)
{
  for (const char* id : {"01hx2k3m4n5p", "01hy2k3m4n5p", "02aa2k3m4n5p"}) {
    TaskRecord record = record_with_id(id);
    bgtask::save_record(dir(), record);
  }
  EXPECT_EQ(bgtask::resolve_task_id(dir(), "01hx"), "01hx2k3m4n5p");
  EXPECT_EQ(bgtask::resolve_task_id(dir(), "01hy2"), "01hy2k3m4n5p");
  EXPECT_EQ(bgtask::resolve_task_id(dir(), "02aa"), "02aa2k3m4n5p");
  EXPECT_EQ(bgtask::resolve_task_id(dir(), "01hx2k3m4n5"), "01hx2k3m4n5p");
}

TEST_F(RecordStore, RefusesAnAmbiguousPrefixListingTheMatches)
{
  for (const char* id : {"01hx2k3m4n5p", "01hx2k3m4n5q", "01hy2k3m4n5p"}) {
    TaskRecord record = record_with_id(id);
    bgtask::save_record(dir(), record);
  }
  const std::string message = resolve_error("01hx");
  EXPECT_NE(message.find("ambiguous"), std::string::npos) << message;
  EXPECT_NE(message.find("01hx2k3m4n5p"), std::string::npos) << message;
  EXPECT_NE(message.find("01hx2k3m4n5q"), std::string::npos) << message;
  EXPECT_EQ(message.find("01hy2k3m4n5p"), std::string::npos) << message;
}

TEST_F(RecordStore, RefusesAnUnknownId)
{
  TaskRecord record = record_with_id("01hx2k3m4n5p");
  bgtask::save_record(dir(), record);
  EXPECT_NE(resolve_error("01hx2k3m4n5q").find("no task"), std::string::npos);
  EXPECT_NE(resolve_error("zzzz").find("no task"), std::string::npos);
}

TEST_F(RecordStore, RefusesAnIdWhoseOnlyFilesAreNotRecords)
{
  write_file(m_path / "01hx2k3m4n5p.output", "out");
  write_file(m_path / "01hx2k3m4n5p.lock", "");
  resolve_error("01hx2k3m4n5p");
  resolve_error("01hx");
}

TEST_F(RecordStore, RefusesMalformedIdsWithoutTouchingTheDirectory)
{
  TaskRecord record = record_with_id("01hx2k3m4n5p");
  bgtask::save_record(dir(), record);
  const auto before = entries_of(m_path);
  for (const std::string_view text :
       {"", "01h", "../x", "a/b", "-rf", "01hx/", "01HU", "01hx2k3m4n5p0", ".", "..", "01hx 2k3",
        "01hx\n", "01hu", "01hx2k3m4n5p.status.json"}) {
    EXPECT_NE(resolve_error(text).find("invalid task ID"), std::string::npos) << text;
  }
  EXPECT_EQ(entries_of(m_path), before);
}

TEST_F(RecordStore, ResolvesIdsInEitherCaseAndTheNewestTask)
{
  for (const char* id : {"01hx2k3m4n5p", "01hy2k3m4n5p"}) {
    TaskRecord record = record_with_id(id);
    bgtask::save_record(dir(), record);
  }
  EXPECT_EQ(bgtask::resolve_task_id(dir(), "01HX"), "01hx2k3m4n5p");
  EXPECT_EQ(bgtask::resolve_task_id(dir(), "01HY2K3M4N5P"), "01hy2k3m4n5p");
  EXPECT_EQ(bgtask::resolve_task_id(dir(), "@last"), "01hy2k3m4n5p");
}

TEST_F(RecordStore, ResolvesSeveralIdsDroppingRepeats)
{
  for (const char* id : {"01hx2k3m4n5p", "01hy2k3m4n5p"}) {
    TaskRecord record = record_with_id(id);
    bgtask::save_record(dir(), record);
  }
  EXPECT_EQ(bgtask::resolve_task_ids(dir(), {"01hy", "01hx", "01hy2k3m4n5p", "01hx2"}),
            (std::vector<std::string>{"01hy2k3m4n5p", "01hx2k3m4n5p"}));
}

TEST_F(RecordStore, LoadRecordsKeepsWhatTheFilterAcceptsOldestFirstAndSkipsCorruptOnes)
{
  for (const auto* id : {"01hx2k3m4n5b", "01hx2k3m4n5a", "01hx2k3m4n5c"}) {
    auto record = record_with_id(id);
    if (std::string(id).back() == 'c') {
      record.state = TaskState::running;
      record.exit_code.reset();
      record.finished_at.reset();
      record.duration_s.reset();
    }
    bgtask::save_record(dir(), record);
  }
  write_file(record_path("01hx2k3m4n5d"), "{not json");
  std::vector<std::string> all;
  for (const auto& record : bgtask::load_records(dir())) {
    all.push_back(record.id);
  }
  EXPECT_EQ(all, (std::vector<std::string>{"01hx2k3m4n5a", "01hx2k3m4n5b", "01hx2k3m4n5c"}));
  const auto running =
    bgtask::load_records(dir(), [](const TaskRecord& r) { return r.state == TaskState::running; });
  ASSERT_EQ(running.size(), 1U);
  EXPECT_EQ(running.front().id, "01hx2k3m4n5c");
}

TEST_F(RecordStore, CurrentRecordsTakeTheRecordsReadAndLoadTheOthersInOrder)
{
  const std::vector<std::string> ids = {"01hx2k3m4n5a", "01hx2k3m4n5b", "01hx2k3m4n5c",
                                        "01hx2k3m4n5d", "01hx2k3m4n5e"};
  std::vector<TaskRecord> read;
  for (const auto& id : ids) {
    auto record = record_with_id(id);
    bgtask::save_record(dir(), record);
    if (id.back() == 'b' || id.back() == 'c' || id.back() == 'e') {
      record.name = "read before";
      read.push_back(record);
    }
  }
  const auto described = [&](std::vector<TaskRecord> taken) {
    std::vector<std::string> got;
    for (const auto& record : bgtask::load_current_records(dir(), ids, std::move(taken))) {
      got.push_back(record.id + " " + record.name.value_or("-"));
    }
    return got;
  };
  const auto all_read = [&] {
    std::vector<TaskRecord> all;
    for (const auto& id : ids) {
      all.push_back(record_with_id(id));
      all.back().name = "read before";
    }
    return all;
  };
  EXPECT_EQ(described(std::move(read)),
            (std::vector<std::string>{"01hx2k3m4n5a store test", "01hx2k3m4n5b read before",
                                      "01hx2k3m4n5c read before", "01hx2k3m4n5d store test",
                                      "01hx2k3m4n5e read before"}));
  EXPECT_EQ(described({}),
            (std::vector<std::string>{"01hx2k3m4n5a store test", "01hx2k3m4n5b store test",
                                      "01hx2k3m4n5c store test", "01hx2k3m4n5d store test",
                                      "01hx2k3m4n5e store test"}));
  EXPECT_EQ(described(all_read()),
            (std::vector<std::string>{"01hx2k3m4n5a read before", "01hx2k3m4n5b read before",
                                      "01hx2k3m4n5c read before", "01hx2k3m4n5d read before",
                                      "01hx2k3m4n5e read before"}));
}
