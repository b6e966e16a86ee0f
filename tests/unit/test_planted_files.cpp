// Files planted under a task's names before bgtask writes them: a link
// must be neither followed nor written through, whatever it points at,
// including a path that does not exist yet (O_CREAT would create it).

#include <bgtask/core/launch_request.hpp>
#include <bgtask/exec/executors.hpp>
#include <bgtask/exec/local/local_executor.hpp>
#include <bgtask/store/output_file.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/store/task_files.hpp>
#include <bgtask/store/task_lock.hpp>
#include <bgtask/util/error.hpp>

#include <gtest/gtest.h>

#include "temp_root.hpp"
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

using bgtask::TaskDir;

namespace {

constexpr const char* k_id = "0a1b2c3d4e5f";

class PlantedFiles : public ::testing::Test
{
protected:
  void SetUp() override
  {
    fs::create_directory(m_root / "tasks");
    fs::permissions(m_root / "tasks", fs::perms::owner_all, fs::perm_options::replace);
    fs::create_directory(m_root / "outside");
    std::ofstream(m_root / "outside" / "secret") << "outside\n";
    m_dir.emplace(TaskDir::open((m_root / "tasks").string()));
  }

  void TearDown() override { m_dir.reset(); }

  fs::path task_file(const std::string& name) const { return m_root / "tasks" / name; }
  fs::path outside(const std::string& name) const { return m_root / "outside" / name; }

  std::string secret() const
  {
    std::ifstream in(outside("secret"));
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  bgtask::TaskRecord record() const
  {
    bgtask::TaskRecord r;
    r.id = k_id;
    r.command = {"true"};
    r.cwd = "/";
    r.created_at = bgtask::now();
    return r;
  }

  TempRoot m_root{"planted"};
  std::optional<TaskDir> m_dir;
};

} // namespace

TEST_F(PlantedFiles, CreatingTheLockNeverFollowsALink)
{
  fs::create_symlink(outside("secret"), task_file(bgtask::lock_file_name(k_id)));
  EXPECT_FALSE(bgtask::TaskLock::create_owned(*m_dir, k_id).has_value());
  EXPECT_EQ(secret(), "outside\n");

  fs::remove(task_file(bgtask::lock_file_name(k_id)));
  fs::create_symlink(outside("made-by-bgtask"), task_file(bgtask::lock_file_name(k_id)));
  EXPECT_FALSE(bgtask::TaskLock::create_owned(*m_dir, k_id).has_value());
  EXPECT_FALSE(fs::exists(outside("made-by-bgtask")));
}

TEST_F(PlantedFiles, OpeningALinkedLockGivesNothing)
{
  fs::create_symlink(outside("secret"), task_file(bgtask::lock_file_name(k_id)));
  EXPECT_FALSE(bgtask::TaskLock::open_existing(*m_dir, k_id).has_value());
}

TEST_F(PlantedFiles, SavingARecordReplacesALinkNotItsTarget)
{
  const auto path = task_file(bgtask::status_file_name(k_id));
  fs::create_symlink(outside("secret"), path);
  auto r = record();
  bgtask::save_record(*m_dir, r);
  EXPECT_EQ(secret(), "outside\n");
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(path)));
  EXPECT_EQ(bgtask::load_record(*m_dir, k_id).status, bgtask::LoadStatus::ok);
  EXPECT_EQ(fs::status(path).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
}

TEST_F(PlantedFiles, SavingOverAPlantedDirectoryFailsCleanly)
{
  fs::create_directory(task_file(bgtask::status_file_name(k_id)));
  auto r = record();
  EXPECT_THROW(bgtask::save_record(*m_dir, r), bgtask::Error);
  for (const auto& entry : fs::directory_iterator(m_root / "tasks")) {
    const auto file = bgtask::parse_task_file_name(entry.path().filename().string());
    EXPECT_FALSE(file && file->kind == bgtask::TaskFileKind::temp)
      << "a temp file was left behind: " << entry.path();
  }
}

TEST_F(PlantedFiles, StartRefusesAPlantedOutputFileBeforeRunningAnything)
{
  auto lock = bgtask::TaskLock::create_owned(*m_dir, k_id);
  ASSERT_TRUE(lock.has_value());
  fs::create_symlink(outside("made-by-bgtask"), task_file(bgtask::output_file_name(k_id)));
  bgtask::LaunchRequest request;
  request.record = record();
  request.argv = {"touch", outside("ran").string()};
  bgtask::LocalExecutor executor(bgtask::reconcile_record);
  EXPECT_THROW(executor.launch(*m_dir, std::move(*lock), std::move(request)), bgtask::Error);
  EXPECT_FALSE(fs::exists(outside("made-by-bgtask")));
  EXPECT_FALSE(fs::exists(outside("ran")));
}

TEST_F(PlantedFiles, TheOutputReaderRefusesLinksFifosAndDirectories)
{
  const auto path = task_file(bgtask::output_file_name(k_id));
  fs::create_symlink(outside("secret"), path);
  EXPECT_THROW(bgtask::open_output_file(*m_dir, k_id), bgtask::Error);
  fs::remove(path);
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  EXPECT_THROW(bgtask::open_output_file(*m_dir, k_id), bgtask::Error) << "and it must not block";
  fs::remove(path);
  fs::create_directory(path);
  EXPECT_THROW(bgtask::open_output_file(*m_dir, k_id), bgtask::Error);
}
