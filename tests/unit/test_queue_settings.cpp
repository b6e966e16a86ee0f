#include <bgtask/core/record_json.hpp>
#include <bgtask/exec/executors.hpp>
#include <bgtask/exec/local/local_reconcile.hpp>
#include <bgtask/exec/verdict.hpp>
#include <bgtask/store/dir_lock.hpp>
#include <bgtask/store/queue_settings.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/store/task_files.hpp>
#include <bgtask/store/task_fingerprint.hpp>
#include <bgtask/util/error.hpp>

#include <gtest/gtest.h>

#include "temp_root.hpp"
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace bgtask {
namespace {

class QueueSettingsFiles : public ::testing::Test
{
protected:
  void SetUp() override { m_dir.emplace(TaskDir::open((m_root / "tasks").string())); }

  void TearDown() override { m_dir.reset(); }

  const TaskDir& dir() const { return *m_dir; }
  fs::path path(const std::string& name) const { return m_root / "tasks" / name; }

  void write_file(const std::string& name, std::string_view content)
  {
    std::ofstream out(path(name), std::ios::binary | std::ios::trunc);
    out << content;
  }

  TempRoot m_root{"queue"};
  std::optional<TaskDir> m_dir;
};

TaskRecord queued_record()
{
  TaskRecord r;
  r.id = "01hx2k3m4n5p";
  r.command = {"make"};
  r.cwd = "/src";
  r.state = TaskState::queued;
  r.created_at = now();
  r.owner = OwnerIdentity{4242, "00112233445566778899aabbccddeeff", 1000, "boot", "host"};
  r.queue = "build";
  r.after = {"01hx2k3m4n5q"};
  r.waiting_for = WaitingFor::after;
  r.on_exit = "notify-send done";
  r.fingerprint = std::string(64, 'a');
  return r;
}

TEST(QueueName, AcceptsTheDocumentedGrammarOnly)
{
  for (const char* name : {"q", "build", "Build_2", "night-jobs", "_x"}) {
    EXPECT_TRUE(is_queue_name(name)) << name;
  }
  for (const char* name : {"", "-x", "a.b", "a/b", "..", "a b", "ä", "q\n"}) {
    EXPECT_FALSE(is_queue_name(name)) << name;
  }
  EXPECT_TRUE(is_queue_name(std::string(64, 'q')));
  EXPECT_FALSE(is_queue_name(std::string(65, 'q')));
  EXPECT_THROW(check_queue_name("a/b"), Error);
}

TEST(QueueName, FilesOfAQueueAreNeverTaskFiles)
{
  for (const auto& name :
       {queue_settings_file_name("abcdefghjkmn"), queue_slot_file_name("abcdefghjkmn", 0),
        queue_settings_file_name("0123"), std::string(k_start_lock_file),
        std::string("fingerprint.key"), temp_file_name(queue_settings_file_name("q")),
        temp_file_name("fingerprint.key")}) {
    EXPECT_FALSE(parse_task_file_name(name).has_value()) << name;
  }
  EXPECT_EQ(queue_slot_file_name("build", 3), "queue-build.slot-3.lock");
  EXPECT_EQ(queue_settings_file_name("build"), "queue-build.json");
}

TEST_F(QueueSettingsFiles, SlotsDefaultToOneAndPersist)
{
  const auto missing = load_queue_settings(dir(), "build");
  ASSERT_TRUE(missing.has_value()) << missing.error();
  EXPECT_FALSE(missing->has_value());
  EXPECT_EQ(slots_of(missing), 1U);
  save_queue_settings(dir(), "build", 4);
  const auto settings = load_queue_settings(dir(), "build");
  ASSERT_TRUE(settings.has_value()) << settings.error();
  EXPECT_EQ(*settings, std::optional<std::size_t>(4));
  EXPECT_EQ(slots_of(settings), 4U);
  EXPECT_EQ(fs::status(path("queue-build.json")).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_EQ(scan_queue_names(dir()), std::vector<std::string>{"build"});
}

TEST_F(QueueSettingsFiles, AnUnusableSettingsFileIsCorruptAndMeansOneSlot)
{
  for (const char* content :
       {"", "{", "[]", R"({"schema":2,"queue":"q","slots":3})",
        R"({"schema":1,"queue":"other","slots":3})", R"({"schema":1,"queue":"q","slots":-1})",
        R"({"schema":1,"queue":"q","slots":1001})", R"({"schema":1,"queue":"q","slots":"3"})"}) {
    write_file("queue-q.json", content);
    const auto settings = load_queue_settings(dir(), "q");
    EXPECT_FALSE(settings.has_value()) << content;
    EXPECT_EQ(slots_of(settings), 1U) << content;
  }
  fs::remove(path("queue-q.json"));
  fs::create_symlink("/etc/passwd", path("queue-q.json"));
  EXPECT_FALSE(load_queue_settings(dir(), "q").has_value());
}

TEST_F(QueueSettingsFiles, ASlotIsHeldOnceUntilReleased)
{
  auto first = DirLock::try_acquire(dir(), queue_slot_file_name("q", 0));
  ASSERT_TRUE(first.has_value());
  EXPECT_FALSE(DirLock::try_acquire(dir(), queue_slot_file_name("q", 0)).has_value());
  EXPECT_TRUE(DirLock::try_acquire(dir(), queue_slot_file_name("q", 1)).has_value());
  first.reset();
  EXPECT_TRUE(DirLock::try_acquire(dir(), queue_slot_file_name("q", 0)).has_value());
}

TEST_F(QueueSettingsFiles, CleanupRemovesAbandonedTempsOfTheDirectoryFilesOnly)
{
  const std::string key_temp = temp_file_name("fingerprint.key");
  const std::string settings_temp = temp_file_name("queue-q.json");
  const std::string task_temp = temp_file_name("01hx2k3m4n5p.status.json");
  for (const auto& name : {key_temp, settings_temp, task_temp}) {
    write_file(name, "x");
  }
  {
    const auto held = DirLock::acquire(dir(), k_start_lock_file);
    remove_abandoned_dir_temps(dir());
    EXPECT_TRUE(fs::exists(path(key_temp))) << "removed while a writer held start.lock";
  }
  remove_abandoned_dir_temps(dir());
  EXPECT_FALSE(fs::exists(path(key_temp)));
  EXPECT_FALSE(fs::exists(path(settings_temp)));
  EXPECT_TRUE(fs::exists(path(task_temp)));
}

TEST_F(QueueSettingsFiles, FingerprintIsKeyedStableAndSensitiveToWhatDedupeCompares)
{
  LaunchRequest request;
  request.record.command = {"sleep", "1"};
  request.record.cwd = "/tmp";
  request.env_additions = {"TOKEN=secret"};
  const auto made = task_fingerprint(dir(), request);
  ASSERT_TRUE(made.has_value()) << made.error();
  const std::string base = *made;
  EXPECT_EQ(base.size(), 64U);
  EXPECT_EQ(fs::file_size(path("fingerprint.key")), 32U);
  EXPECT_EQ(task_fingerprint(dir(), request).value_or(""), base);

  auto changed = request;
  changed.record.name = "named";
  changed.grace = Milliseconds(1);
  EXPECT_EQ(task_fingerprint(dir(), changed).value_or(""), base)
    << "name and grace are not compared";
  changed = request;
  changed.env_additions = {"TOKEN=other"};
  EXPECT_NE(task_fingerprint(dir(), changed).value_or(""), base);
  changed = request;
  changed.timeout = Milliseconds(1000);
  EXPECT_NE(task_fingerprint(dir(), changed).value_or(""), base);
  changed = request;
  changed.record.cwd = "/";
  EXPECT_NE(task_fingerprint(dir(), changed).value_or(""), base);
  changed = request;
  changed.record.command = {"sleep 1"};
  EXPECT_NE(task_fingerprint(dir(), changed).value_or(""), base);
  changed = request;
  changed.record.shell = true;
  EXPECT_NE(task_fingerprint(dir(), changed).value_or(""), base);

  // Another directory has another key: the same task gets another fingerprint.
  const TaskDir other = TaskDir::open((m_root / "other").string());
  EXPECT_NE(task_fingerprint(other, request).value_or(""), base);
}

TEST(SchedulingRecord, RoundTripsTheSchedulingFields)
{
  const TaskRecord record = queued_record();
  const auto decoded = decode_record(encode_record(record));
  ASSERT_TRUE(decoded.has_value()) << decoded.error();
  EXPECT_EQ(decoded->queue, record.queue);
  EXPECT_EQ(decoded->after, record.after);
  EXPECT_EQ(decoded->waiting_for, WaitingFor::after);
  EXPECT_EQ(decoded->on_exit, record.on_exit);
  EXPECT_EQ(decoded->fingerprint, record.fingerprint);
  EXPECT_EQ(decoded->state, TaskState::queued);
}

TEST(SchedulingRecord, RejectsABadQueueDependencyOrWaitingFor)
{
  const std::string good = encode_record(queued_record());
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
         {R"("queue":"build")", R"("queue":"../x")"},
         {R"("after":["01hx2k3m4n5q"])", R"("after":["../../etc"])"},
         {R"("waiting_for":"after")", R"("waiting_for":"godot")"}}) {
    std::string text = good;
    const auto at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
    EXPECT_FALSE(decode_record(text).has_value()) << to;
  }
}

TEST(SchedulingRecord, FinishingClearsWaitingFor)
{
  TaskRecord record = queued_record();
  finish_record(record, TaskState::cancelled, "cancelled on request while queued");
  EXPECT_FALSE(record.waiting_for.has_value());
}

TEST(SchedulingRecord, AQueuedRecordIsJudgedLikeARunningOne)
{
  const TaskRecord record = queued_record();
  Liveness alive;
  alive.supervisor_alive = true;
  EXPECT_EQ(judge_record(record, alive), Verdict::keep);
  Liveness dead;
  EXPECT_EQ(judge_record(record, dead), Verdict::supervisor_died);
  Liveness rebooted;
  rebooted.same_boot = false;
  EXPECT_EQ(judge_record(record, rebooted), Verdict::host_rebooted);
  Liveness elsewhere;
  elsewhere.same_host = false;
  EXPECT_EQ(judge_record(record, elsewhere), Verdict::foreign_host);
}

} // namespace
} // namespace bgtask
