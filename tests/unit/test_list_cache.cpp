#include <bgtask/core/record_json.hpp>
#include <bgtask/store/list_cache.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/record_transaction.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/store/task_files.hpp>
#include <bgtask/store/task_lock.hpp>

#include <gtest/gtest.h>

#include "temp_root.hpp"
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sys/stat.h>
#include <thread>

namespace fs = std::filesystem;

using bgtask::ListCache;
using bgtask::RecordFile;
using bgtask::TaskRecord;
using bgtask::TaskState;

namespace {

TaskRecord finished(std::string id, TaskState state = TaskState::succeeded)
{
  TaskRecord r;
  r.id = std::move(id);
  r.command = {"sh", "-c", "echo 'a\tb'\nexit 3 \\ done"};
  r.cwd = "/tmp/with\ttab and \\ backslash\nand newline";
  r.state = state;
  r.exit_code = 3;
  r.created_at = bgtask::now();
  r.started_at = r.created_at;
  r.finished_at = r.created_at;
  r.duration_s = 0.1 + 0.2; // not exact in decimal
  return r;
}

std::string slurp(const fs::path& path)
{
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

} // namespace

class ListCacheTest : public ::testing::Test
{
protected:
  void SetUp() override
  {
    m_path = m_root / "tasks";
    m_dir.emplace(bgtask::TaskDir::open(m_path.string()));
  }

  const bgtask::TaskDir& dir() const { return *m_dir; }

  // Writes `record` as `start` and its supervisor would: lock, then record.
  void write(TaskRecord record)
  {
    auto lock = bgtask::TaskLock::create_owned(dir(), record.id);
    ASSERT_TRUE(lock.has_value());
    bgtask::create_record(dir(), *lock, record);
  }

  // What `list` does: the listing, the cache's fields where it has them,
  // else the record file's; then the save. Returns how many came from the
  // cache.
  std::size_t list_once(std::vector<TaskRecord>* shown = nullptr)
  {
    const auto cache = ListCache::load(dir());
    const auto listing = cache.record_files(dir());
    std::vector<std::string> added;
    std::size_t hits = 0;
    for (const auto& file : listing.files) {
      auto cached = cache.find(file);
      if (cached) {
        ++hits;
      } else {
        auto loaded = bgtask::load_record(dir(), file.id);
        EXPECT_EQ(loaded.status, bgtask::LoadStatus::ok);
        if (bgtask::is_final(loaded.record.state)) {
          added.push_back(ListCache::entry(file.ino, loaded.record));
        }
        cached = std::move(loaded.record);
      }
      if (shown != nullptr) {
        shown->push_back(std::move(*cached));
      }
    }
    cache.save(dir(), listing, added);
    return hits;
  }

  fs::path cache_file() const { return m_path / ".cache" / "list"; }

  TempRoot m_root{"list-cache"};
  fs::path m_path;
  std::optional<bgtask::TaskDir> m_dir;
};

TEST_F(ListCacheTest, KeepsEveryFieldListShowsExactly)
{
  auto record = finished("2aaaaaaaaaaa", TaskState::failed);
  record.name = "name\twith\\tab";
  record.queue = "q";
  record.reason = "oom";
  record.signal = 9;
  record.exit_code.reset();
  write(record);
  auto plain = finished("2aaaaaaaaaab");
  plain.shell = true;
  plain.started_at.reset();
  plain.duration_s.reset();
  write(plain);
  EXPECT_EQ(list_once(), 0U);
  std::vector<TaskRecord> shown;
  EXPECT_EQ(list_once(&shown), 2U);
  ASSERT_EQ(shown.size(), 2U);
  for (const auto* expected : {&record, &plain}) {
    const auto& got = expected == &record ? shown[0] : shown[1];
    EXPECT_EQ(got.id, expected->id);
    EXPECT_EQ(got.state, expected->state);
    EXPECT_EQ(got.exit_code, expected->exit_code);
    EXPECT_EQ(got.signal, expected->signal);
    EXPECT_EQ(got.reason, expected->reason);
    EXPECT_EQ(got.started_at, expected->started_at);
    EXPECT_EQ(got.duration_s, expected->duration_s); // bit for bit
    EXPECT_EQ(got.name, expected->name);
    EXPECT_EQ(got.queue, expected->queue);
    EXPECT_EQ(got.shell, expected->shell);
    EXPECT_EQ(got.cwd, expected->cwd);
    EXPECT_EQ(got.command, expected->command);
  }
}

TEST_F(ListCacheTest, UnfinishedRecordsAreAlwaysReadFromTheirFiles)
{
  auto running = finished("2aaaaaaaaaac", TaskState::running);
  running.exit_code.reset();
  write(running);
  list_once();
  EXPECT_EQ(list_once(), 0U);
}

TEST_F(ListCacheTest, ARewrittenFinishedRecordIsReadAgain)
{
  write(finished("2aaaaaaaaaad"));
  list_once();
  // A late event on a finished record (an exit hook's note): the record is
  // replaced by another file, and the writer drops the cache.
  const auto update = bgtask::update_record(dir(), "2aaaaaaaaaad", [](TaskRecord& r) {
    r.exit_code = 7;
    return bgtask::Change::save;
  });
  ASSERT_EQ(update.status, bgtask::UpdateStatus::saved);
  EXPECT_FALSE(fs::exists(cache_file()));
  std::vector<TaskRecord> shown;
  EXPECT_EQ(list_once(&shown), 0U);
  ASSERT_EQ(shown.size(), 1U);
  EXPECT_EQ(shown[0].exit_code, 7);
}

TEST_F(ListCacheTest, AnEntryForAnotherInodeIsNotUsed)
{
  write(finished("2aaaaaaaaaae"));
  list_once();
  // Replaced behind the cache's back (no writer of bgtask does this).
  auto changed = finished("2aaaaaaaaaae");
  changed.exit_code = 42;
  bgtask::save_record(dir(), changed);
  std::vector<TaskRecord> shown;
  EXPECT_EQ(list_once(&shown), 0U);
  ASSERT_EQ(shown.size(), 1U);
  EXPECT_EQ(shown[0].exit_code, 42);
}

TEST_F(ListCacheTest, ATornOrAlteredCacheIsIgnoredAndRebuilt)
{
  write(finished("2aaaaaaaaaaf"));
  write(finished("2aaaaaaaaaag"));
  list_once();
  const std::string whole = slurp(cache_file());
  ASSERT_FALSE(whole.empty());
  for (const std::string& bad :
       {whole.substr(0, whole.size() - 5), whole.substr(0, whole.find('\n') + 1), std::string(),
        std::string("garbage\n"), whole.substr(0, whole.size() - 3) + "x\n\n"}) {
    std::ofstream(cache_file(), std::ios::binary | std::ios::trunc) << bad;
    EXPECT_EQ(list_once(), 0U) << "a damaged cache was used: " << bad;
    EXPECT_EQ(list_once(), 2U) << "the cache was not rebuilt";
  }
}

TEST_F(ListCacheTest, ACacheNotOwnedByTheOwnerOrOpenToOthersIsIgnored)
{
  write(finished("2aaaaaaaaaah"));
  list_once();
  ASSERT_EQ(list_once(), 1U);
  fs::permissions(m_path / ".cache", fs::perms::group_write | fs::perms::others_write,
                  fs::perm_options::add);
  EXPECT_EQ(list_once(), 0U);
  fs::permissions(m_path / ".cache", fs::perms::owner_all, fs::perm_options::replace);
  fs::remove(cache_file());
  fs::create_symlink(m_path / "elsewhere", cache_file());
  EXPECT_EQ(list_once(), 0U);
}

TEST_F(ListCacheTest, TheListingIsReusedOnlyWhileTheDirectoryIsUnchanged)
{
  write(finished("2aaaaaaaaaak"));
  list_once();
  // A listing taken within a second of the last change is not reused.
  EXPECT_FALSE(ListCache::load(dir()).record_files(dir()).cached);
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  list_once(); // now settled: saved with its stamp
  auto listing = ListCache::load(dir()).record_files(dir());
  EXPECT_TRUE(listing.cached);
  ASSERT_EQ(listing.files.size(), 1U);
  // Saving the cache leaves the task directory's times alone.
  list_once();
  EXPECT_TRUE(ListCache::load(dir()).record_files(dir()).cached);
  // A new task, and a removed one, are seen at once.
  write(finished("2aaaaaaaaaam"));
  listing = ListCache::load(dir()).record_files(dir());
  EXPECT_FALSE(listing.cached);
  EXPECT_EQ(listing.files.size(), 2U);
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  list_once();
  ASSERT_TRUE(ListCache::load(dir()).record_files(dir()).cached);
  fs::remove(m_path / bgtask::status_file_name("2aaaaaaaaaak"));
  listing = ListCache::load(dir()).record_files(dir());
  EXPECT_FALSE(listing.cached);
  ASSERT_EQ(listing.files.size(), 1U);
  EXPECT_EQ(listing.files[0].id, "2aaaaaaaaaam");
}

TEST_F(ListCacheTest, ACachedListingKeepsRecordFilesWithoutAnInodeNumber)
{
  write(finished("2aaaaaaaaaan"));
  write(finished("2aaaaaaaaaap"));
  list_once(); // makes .cache, which changes the directory's times
  // A listing as a file system without d_ino gives it (inode 0), stamped
  // with the directory's times as settled.
  struct stat st
  {
  };
  ASSERT_EQ(::stat(m_path.c_str(), &st), 0);
  bgtask::RecordListing listing;
  listing.files = {RecordFile{"2aaaaaaaaaan", 0}, RecordFile{"2aaaaaaaaaap", 0}};
  const auto ns = [](const timespec& t) { return std::int64_t{t.tv_sec} * 1000000000 + t.tv_nsec; };
  listing.stamp = {ns(st.st_ctim), ns(st.st_mtim), ns(st.st_ctim) + 2000000000};
  ListCache().save(dir(), listing, {});
  const auto cache = ListCache::load(dir());
  const auto reused = cache.record_files(dir());
  EXPECT_TRUE(reused.cached);
  ASSERT_EQ(reused.files.size(), 2U);
  EXPECT_FALSE(cache.find(reused.files[0])); // never matched: read from the record
}
