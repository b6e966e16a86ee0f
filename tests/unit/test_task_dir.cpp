#include <bgtask/store/task_dir.hpp>
#include <bgtask/util/error.hpp>

#include <gtest/gtest.h>

#include "temp_root.hpp"
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

using bgtask::TaskDir;

namespace {

// Sets or clears environment variables for one test and restores them after.
class ScopedEnvironment
{
public:
  ~ScopedEnvironment()
  {
    for (const auto& [name, value] : m_saved) {
      if (value) {
        ::setenv(name.c_str(), value->c_str(), 1);
      } else {
        ::unsetenv(name.c_str());
      }
    }
  }

  void set(const std::string& name, const std::string& value)
  {
    save(name);
    ::setenv(name.c_str(), value.c_str(), 1);
  }

  void clear(const std::string& name)
  {
    save(name);
    ::unsetenv(name.c_str());
  }

private:
  void save(const std::string& name)
  {
    if (m_saved.count(name) == 0) {
      const char* value = std::getenv(name.c_str());
      m_saved[name] = value != nullptr ? std::optional<std::string>(value) : std::nullopt;
    }
  }

  std::map<std::string, std::optional<std::string>> m_saved;
};

mode_t mode_of(const fs::path& path)
{
  struct stat st
  {
  };
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

} // namespace

class TaskDirTest : public ::testing::Test
{
protected:
  void SetUp() override {}

  // The message of the usage error TaskDir::open throws for `path`.
  std::string refusal(const fs::path& path)
  {
    try {
      TaskDir::open(path.string());
      ADD_FAILURE() << "opened " << path;
    } catch (const bgtask::Error& e) {
      EXPECT_EQ(e.code(), bgtask::ExitCode::usage);
      return e.what();
    }
    return {};
  }

  TempRoot m_root{"dir"};
};

TEST_F(TaskDirTest, CreatesAMissingDirectoryWithMode0700)
{
  const fs::path path = m_root / "tasks";
  const TaskDir dir = TaskDir::open(path.string());
  EXPECT_EQ(dir.path(), path.string());
  EXPECT_GE(dir.fd(), 0);
  EXPECT_TRUE(fs::is_directory(path));
  EXPECT_EQ(mode_of(path), 0700u);
}

TEST_F(TaskDirTest, CreatesMissingParentsPrivately)
{
  const fs::path path = m_root / "state" / "deeper" / "bgtask";
  const mode_t old_umask = ::umask(0);
  TaskDir::open(path.string());
  ::umask(old_umask);
  EXPECT_EQ(mode_of(path), 0700u);
  EXPECT_EQ(mode_of(m_root / "state"), 0700u);
  EXPECT_EQ(mode_of(m_root / "state" / "deeper"), 0700u);
}

TEST_F(TaskDirTest, OpensAnExistingPrivateDirectory)
{
  const fs::path path = m_root / "tasks";
  ASSERT_EQ(::mkdir(path.c_str(), 0700), 0);
  std::ofstream(path / "keep") << "x";
  TaskDir::open(path.string());
  EXPECT_TRUE(fs::exists(path / "keep"));
  EXPECT_EQ(mode_of(path), 0700u);
}

TEST_F(TaskDirTest, AcceptsADirectoryReadableByOthers)
{
  const fs::path path = m_root / "tasks";
  ASSERT_EQ(::mkdir(path.c_str(), 0700), 0);
  ASSERT_EQ(::chmod(path.c_str(), 0755), 0);
  TaskDir::open(path.string());
}

TEST_F(TaskDirTest, RefusesADirectoryWritableByOthers)
{
  const fs::path path = m_root / "tasks";
  ASSERT_EQ(::mkdir(path.c_str(), 0700), 0);
  ASSERT_EQ(::chmod(path.c_str(), 0777), 0);
  const std::string message = refusal(path);
  EXPECT_NE(message.find(path.string()), std::string::npos) << message;
  EXPECT_NE(message.find("0777"), std::string::npos) << message;
  EXPECT_NE(message.find("writable by others"), std::string::npos) << message;
  ASSERT_EQ(::chmod(path.c_str(), 0702), 0);
  EXPECT_NE(refusal(path).find("writable by others"), std::string::npos);
  ASSERT_EQ(::chmod(path.c_str(), 01777), 0);
  refusal(path);
}

TEST_F(TaskDirTest, RefusesADirectoryWritableByItsGroup)
{
  const fs::path path = m_root / "tasks";
  ASSERT_EQ(::mkdir(path.c_str(), 0700), 0);
  ASSERT_EQ(::chmod(path.c_str(), 0770), 0);
  EXPECT_NE(refusal(path).find("writable by group"), std::string::npos);
  ASSERT_EQ(::chmod(path.c_str(), 0720), 0);
  EXPECT_NE(refusal(path).find("writable by group"), std::string::npos);
}

TEST_F(TaskDirTest, RefusesASymbolicLink)
{
  const fs::path target = m_root / "real";
  ASSERT_EQ(::mkdir(target.c_str(), 0700), 0);
  const fs::path link = m_root / "tasks";
  fs::create_symlink(target, link);
  EXPECT_NE(refusal(link).find("symbolic link"), std::string::npos);
  const fs::path dangling = m_root / "dangling";
  fs::create_symlink(m_root / "nowhere", dangling);
  refusal(dangling);
  EXPECT_FALSE(fs::exists(m_root / "nowhere"));
}

TEST_F(TaskDirTest, RefusesSomethingThatIsNotADirectory)
{
  const fs::path file = m_root / "tasks";
  std::ofstream(file) << "x";
  EXPECT_NE(refusal(file).find("not a directory"), std::string::npos);
  const fs::path fifo = m_root / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  refusal(fifo);
}

TEST_F(TaskDirTest, RefusesADirectoryOwnedByAnotherUser)
{
  if (::geteuid() != 0) {
    GTEST_SKIP() << "needs root to give a directory away";
  }
  const fs::path path = m_root / "tasks";
  ASSERT_EQ(::mkdir(path.c_str(), 0700), 0);
  ASSERT_EQ(::chown(path.c_str(), 65534, 65534), 0);
  const std::string message = refusal(path);
  EXPECT_NE(message.find("owned by uid 65534"), std::string::npos) << message;
}

TEST_F(TaskDirTest, SyncsTheDirectory)
{
  const TaskDir dir = TaskDir::open((m_root / "tasks").string());
  EXPECT_EQ(dir.sync(), 0);
}

TEST_F(TaskDirTest, JoinsFilePaths)
{
  const TaskDir dir = TaskDir::open((m_root / "tasks").string());
  EXPECT_EQ(dir.file_path("x.output"), (m_root / "tasks" / "x.output").string());
  const TaskDir slashed = TaskDir::open((m_root / "tasks").string() + "/");
  EXPECT_EQ(slashed.file_path("x.output"), (m_root / "tasks" / "x.output").string());
}

TEST(TaskDirResolvePath, PrefersTheDirOption)
{
  ScopedEnvironment env;
  env.set("BGTASK_DIR", "/from/bgtask_dir");
  env.set("XDG_STATE_HOME", "/from/xdg");
  env.set("HOME", "/from/home");
  EXPECT_EQ(TaskDir::resolve_path(std::string("/from/option")), "/from/option");
}

TEST(TaskDirResolvePath, MakesARelativeDirOptionAbsolute)
{
  ScopedEnvironment env;
  env.clear("BGTASK_DIR");
  EXPECT_EQ(TaskDir::resolve_path(std::string("rel/tasks")),
            (fs::current_path() / "rel" / "tasks").string());
}

TEST(TaskDirResolvePath, RefusesAnEmptyDirOption)
{
  ScopedEnvironment env;
  env.set("BGTASK_DIR", "/from/bgtask_dir");
  try {
    TaskDir::resolve_path(std::string());
    ADD_FAILURE() << "accepted an empty --dir";
  } catch (const bgtask::Error& e) {
    EXPECT_EQ(e.code(), bgtask::ExitCode::usage);
  }
}

TEST(TaskDirResolvePath, UsesBgtaskDirNext)
{
  ScopedEnvironment env;
  env.set("BGTASK_DIR", "/from/bgtask_dir");
  env.set("XDG_STATE_HOME", "/from/xdg");
  env.set("HOME", "/from/home");
  EXPECT_EQ(TaskDir::resolve_path(std::nullopt), "/from/bgtask_dir");
  env.set("BGTASK_DIR", "/from//bgtask_dir/./x/../");
  EXPECT_EQ(TaskDir::resolve_path(std::nullopt), "/from/bgtask_dir");
}

TEST(TaskDirResolvePath, RefusesARelativeOrTildeBgtaskDirNamingTheVariable)
{
  ScopedEnvironment env;
  for (const char* value : {"relative", "~/tasks", "~", "./tasks"}) {
    env.set("BGTASK_DIR", value);
    try {
      TaskDir::resolve_path(std::nullopt);
      ADD_FAILURE() << "accepted BGTASK_DIR=" << value;
    } catch (const bgtask::Error& e) {
      EXPECT_EQ(e.code(), bgtask::ExitCode::usage);
      EXPECT_NE(std::string(e.what()).find("set BGTASK_DIR to an absolute path"), std::string::npos)
        << e.what();
    }
  }
}

TEST(TaskDirResolvePath, UsesAnAbsoluteXdgStateHomeNext)
{
  ScopedEnvironment env;
  env.clear("BGTASK_DIR");
  env.set("XDG_STATE_HOME", "/from/xdg");
  env.set("HOME", "/from/home");
  EXPECT_EQ(TaskDir::resolve_path(std::nullopt), "/from/xdg/bgtask");
  env.set("BGTASK_DIR", "");
  EXPECT_EQ(TaskDir::resolve_path(std::nullopt), "/from/xdg/bgtask");
}

TEST(TaskDirResolvePath, IgnoresARelativeXdgStateHome)
{
  ScopedEnvironment env;
  env.clear("BGTASK_DIR");
  env.set("XDG_STATE_HOME", "relative/state");
  env.set("HOME", "/");
  EXPECT_EQ(TaskDir::resolve_path(std::nullopt), "/.local/state/bgtask");
  env.set("XDG_STATE_HOME", "");
  EXPECT_EQ(TaskDir::resolve_path(std::nullopt), "/.local/state/bgtask");
}

TEST(TaskDirResolvePath, FallsBackToHome)
{
  ScopedEnvironment env;
  env.clear("BGTASK_DIR");
  env.clear("XDG_STATE_HOME");
  env.set("HOME", "/");
  EXPECT_EQ(TaskDir::resolve_path(std::nullopt), "/.local/state/bgtask");
  env.set("HOME", "/from/home"); // does not exist: refused, naming the directory it implies
  try {
    TaskDir::resolve_path(std::nullopt);
    ADD_FAILURE() << "accepted HOME=/from/home";
  } catch (const bgtask::Error& e) {
    EXPECT_NE(std::string(e.what()).find("/from/home/.local/state/bgtask"), std::string::npos)
      << e.what();
  }
}

TEST(TaskDirResolvePath, RefusesWhenNothingNamesADirectory)
{
  ScopedEnvironment env;
  env.clear("BGTASK_DIR");
  env.clear("XDG_STATE_HOME");
  env.clear("HOME");
  try {
    TaskDir::resolve_path(std::nullopt);
    ADD_FAILURE() << "found a directory without --dir, BGTASK_DIR, XDG_STATE_HOME or HOME";
  } catch (const bgtask::Error& e) {
    EXPECT_EQ(e.code(), bgtask::ExitCode::usage);
  }
}
