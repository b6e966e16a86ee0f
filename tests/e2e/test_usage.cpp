#include <bgtask/store/record_store.hpp>
#include <bgtask/store/task_dir.hpp>

#include "e2e/e2e_support.hpp"
#include <filesystem>
#include <sys/stat.h>

namespace fs = std::filesystem;

using e2e::Result;
using Usage = e2e::E2eTest;

namespace {

// The commands that take task IDs, with what they need besides the ID.
const std::vector<std::vector<std::string>> k_id_commands = {
  {"status"}, {"output"}, {"wait"}, {"cancel"}, {"progress", "--percent", "1"}};

std::vector<std::string> with_id(std::vector<std::string> command, const std::string& id)
{
  command.insert(command.begin() + 1, id);
  return command;
}

// Saves a finished record with a chosen ID, as `start` would have left it.
void plant_record(const fs::path& dir, const std::string& id)
{
  const auto task_dir = bgtask::TaskDir::open(dir.string());
  bgtask::TaskRecord record;
  record.id = id;
  record.command = {"true"};
  record.cwd = "/";
  record.state = bgtask::TaskState::succeeded;
  record.exit_code = 0;
  record.created_at = bgtask::now();
  record.started_at = record.created_at;
  record.finished_at = record.created_at;
  bgtask::save_record(task_dir, record);
}

} // namespace

TEST_F(Usage, RefusesUnknownIds)
{
  const std::string id = start({"--", "true"});
  EXPECT_EQ(wait_for(id), 0);
  const std::string unknown = id == "0000000000zz" ? "0000000000zy" : "0000000000zz";
  for (const auto& command : k_id_commands) {
    for (const std::string& text : {unknown, std::string("zzzz")}) {
      const Result result = bg(with_id(command, text));
      EXPECT_EQ(result.exit_code, 2) << command.front() << " " << text << ": " << result;
      EXPECT_NE(result.err.find("no task"), std::string::npos) << result;
      EXPECT_EQ(result.out, "") << result;
    }
  }
}

TEST_F(Usage, RefusesShortAndMalformedIdsWithoutCreatingAnything)
{
  const std::string id = start({"--", "true"});
  EXPECT_EQ(wait_for(id), 0);
  const auto before = dir_entries();
  for (const auto& command : k_id_commands) {
    for (const std::string& text : {id.substr(0, 3), std::string("../x"), std::string("a/b"),
                                    std::string("-rf"), id + "0", std::string("../") + id}) {
      std::vector<std::string> args = with_id(command, text);
      const Result result = bg(args);
      EXPECT_EQ(result.exit_code, 2) << command.front() << " " << text << ": " << result;
      EXPECT_EQ(result.out, "") << result;
      args.insert(args.begin() + 1, "--");
      if (command.size() == 1) {
        const Result after_separator = bg(args);
        EXPECT_EQ(after_separator.exit_code, 2)
          << command.front() << " -- " << text << ": " << after_separator;
      }
    }
  }
  EXPECT_EQ(dir_entries(), before);
  EXPECT_TRUE(fs::exists(record_path(id)));
}

TEST_F(Usage, RefusesMalformedIdsBeforeTouchingTheFilesystem)
{
  const fs::path missing = work() / "not-yet";
  for (const auto& command : k_id_commands) {
    for (const std::string& text : {std::string("../x"), std::string("a/b"), std::string("abc")}) {
      std::vector<std::string> args = {e2e::bgtask_binary(), "--dir", missing.string()};
      const auto more = with_id(command, text);
      args.insert(args.end(), more.begin(), more.end());
      const Result result = e2e::run(args);
      EXPECT_EQ(result.exit_code, 2) << command.front() << " " << text << ": " << result;
      EXPECT_NE(result.err.find("invalid task ID"), std::string::npos) << result;
    }
  }
  EXPECT_FALSE(fs::exists(missing));
}

TEST_F(Usage, RefusesAnAmbiguousPrefixListingTheMatches)
{
  plant_record(dir(), "0000000000aa");
  plant_record(dir(), "0000000000ab");
  plant_record(dir(), "0000000001aa");
  for (const auto& command : k_id_commands) {
    const Result result = bg(with_id(command, "0000000000a"));
    EXPECT_EQ(result.exit_code, 2) << command.front() << ": " << result;
    EXPECT_NE(result.err.find("ambiguous"), std::string::npos) << result;
    EXPECT_NE(result.err.find("0000000000aa"), std::string::npos) << result;
    EXPECT_NE(result.err.find("0000000000ab"), std::string::npos) << result;
    EXPECT_EQ(result.err.find("0000000001aa"), std::string::npos) << result;
  }
  EXPECT_EQ(bg({"status", "000000000"}).exit_code, 2);
  EXPECT_EQ(bg({"status", "0000000001"}).exit_code, 0);
  EXPECT_EQ(bg({"status", "0000000000ab"}).exit_code, 0);
}

TEST_F(Usage, RefusesBadDurations)
{
  const std::string id = start({"--", "sleep", "60"});
  const auto before = dir_entries();
  for (const std::string bad : {"-5s", "1e309", "5x", "", "1h1h", "5 s", "inf", "nan", "0x10"}) {
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"wait", "--timeout=" + bad, id},
          {"start", "--timeout=" + bad, "--", "true"},
          {"start", "--grace=" + bad, "--", "true"},
          {"cancel", "--grace=" + bad, id},
          {"cleanup", "--older-than=" + bad}}) {
      const Result result = bg(args);
      EXPECT_EQ(result.exit_code, 2) << args[0] << " " << args[1] << ": " << result;
      EXPECT_EQ(result.out, "") << result;
    }
  }
  for (const std::string bad : {"-5s", "1e309", "5x"}) {
    EXPECT_EQ(bg({"wait", id, "--timeout", bad}).exit_code, 2) << bad;
  }
  EXPECT_EQ(dir_entries(), before);
  EXPECT_EQ(state_of(id), "running");
}

TEST_F(Usage, AcceptsTheDocumentedDurations)
{
  const std::string id = start({"--", "true"});
  EXPECT_EQ(wait_for(id), 0);
  for (const std::string good : {"500ms", "30s", "5m", "2h", "7d", "1h30m", "10", "0.25"}) {
    const Result result = bg({"wait", "--timeout", good, id});
    EXPECT_EQ(result.exit_code, 0) << good << ": " << result;
  }
}

TEST_F(Usage, RefusesUnknownOptionsAndCommands)
{
  for (const std::vector<std::string>& args : {std::vector<std::string>{"list", "--bogus"},
                                               {"--bogus", "list"},
                                               {"frobnicate"},
                                               {"lst"},
                                               {"start", "--bogus", "--", "true"},
                                               {"status"},
                                               {"wait"},
                                               {"cancel"},
                                               {"output"},
                                               {"list", "--jso"},
                                               {"list", "extra"},
                                               {"status", "--tail"}}) {
    const Result result = bg(args);
    EXPECT_EQ(result.exit_code, 2) << args.front() << ": " << result;
    EXPECT_EQ(result.out, "") << result;
    EXPECT_NE(result.err, "") << result;
  }
  EXPECT_TRUE(dir_entries().empty());
  const Result no_command = e2e::run({e2e::bgtask_binary()});
  EXPECT_EQ(no_command.exit_code, 2) << no_command;
}

TEST_F(Usage, SuggestsWhatAMistypedOrBorrowedWordMeant)
{
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
    {{"rm"}, "did you mean 'cleanup'?"},
    {{"restart"}, "did you mean 'rerun'?"},
    {{"tail"}, "did you mean 'output'?"},
    {{"logs"}, "did you mean 'output'?"},
    {{"kill"}, "did you mean 'cancel'?"},
    {{"ps"}, "did you mean 'list'?"},
    {{"stauts"}, "did you mean 'status'?"},
    {{"start", "--tiemout", "5s", "--", "true"}, "did you mean '--timeout'?"},
    {{"list", "--stat", "running"}, "did you mean '--state'?"},
    {{"start", "ls", "-la"}, "put `--` before the command"},
  };
  for (const auto& [args, hint] : cases) {
    const Result result = bg(args);
    EXPECT_EQ(result.exit_code, 2) << result;
    EXPECT_NE(result.err.find(hint), std::string::npos) << args.front() << ": " << result;
  }
  // A short word is never corrected into an unrelated command.
  const Result rm = bg({"rm"});
  EXPECT_EQ(rm.err.find("'run'"), std::string::npos) << rm;
  EXPECT_TRUE(dir_entries().empty());
}

TEST_F(Usage, RefusesADirectoryWritableByOthers)
{
  ASSERT_EQ(::chmod(dir().c_str(), 0777), 0);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"list"}, {"start", "--", "true"}, {"cleanup"}}) {
    const Result result = bg(args);
    EXPECT_EQ(result.exit_code, 2) << result;
    EXPECT_NE(result.err.find(dir().string()), std::string::npos) << result;
    EXPECT_NE(result.err.find("writable"), std::string::npos) << result;
  }
  EXPECT_TRUE(dir_entries().empty());
}

TEST_F(Usage, RefusesADirectoryThatIsASymlink)
{
  const fs::path link = work() / "link";
  fs::create_symlink(dir(), link);
  const Result result =
    e2e::run({e2e::bgtask_binary(), "--dir", link.string(), "start", "--", "true"});
  EXPECT_EQ(result.exit_code, 2) << result;
  EXPECT_NE(result.err.find("symbolic link"), std::string::npos) << result;
  EXPECT_TRUE(dir_entries().empty());
}

TEST_F(Usage, FindsTheDirectoryThroughTheEnvironment)
{
  e2e::RunOptions options;
  options.env = {"BGTASK_DIR=" + dir().string()};
  const Result started = e2e::run({e2e::bgtask_binary(), "start", "--", "true"}, options);
  ASSERT_EQ(started.exit_code, 0) << started;
  EXPECT_TRUE(fs::exists(record_path(started.line())));
  options.env = {"XDG_STATE_HOME=" + work().string(), "HOME=/nonexistent"};
  const Result xdg = e2e::run({e2e::bgtask_binary(), "start", "--", "true"}, options);
  EXPECT_EQ(xdg.exit_code, 0) << xdg;
  struct stat st
  {
  };
  ASSERT_EQ(::stat((work() / "bgtask").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0700u);
}
