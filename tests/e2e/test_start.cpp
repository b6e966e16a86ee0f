#include <bgtask/core/task_id.hpp>

#include "e2e/e2e_support.hpp"
#include <fstream>
#include <sys/stat.h>

namespace json = boost::json;
namespace fs = std::filesystem;

using e2e::Result;
using Start = e2e::E2eTest;
using namespace std::chrono_literals;

TEST_F(Start, PrintsOnlyTheIdAndReturnsWhileTheTaskRuns)
{
  e2e::RunOptions options;
  options.limit = 20s; // far below the task's 60 s, so a start that waited for it hangs
  const Result result = bg({"start", "--", "sleep", "60"}, options);
  ASSERT_FALSE(result.hung) << result;
  EXPECT_EQ(result.exit_code, 0) << result;
  ASSERT_EQ(result.out.size(), 13u) << result;
  EXPECT_EQ(result.out.back(), '\n');
  EXPECT_TRUE(bgtask::is_task_id(result.line())) << result;
  EXPECT_EQ(result.err, "");
  const auto r = record(result.line());
  EXPECT_EQ(r.at("state"), json::value("running"));
  EXPECT_EQ(r.at("id"), json::value(result.line()));
  EXPECT_EQ(r.at("command"), (json::array{"sleep", "60"}));
  EXPECT_TRUE(r.at("owner").is_object());
  EXPECT_TRUE(r.at("child").is_object());
}

TEST_F(Start, ReturnsAtOnceInsideCommandSubstitution)
{
  e2e::RunOptions options;
  options.limit = 20s;
  const Result result =
    e2e::run({"/bin/sh", "-c", "id=$(\"$0\" --dir \"$1\" start -- sleep 60) && echo \"id=$id\"",
              e2e::bgtask_binary(), dir().string()},
             options);
  ASSERT_FALSE(result.hung) << result;
  ASSERT_EQ(result.exit_code, 0) << result;
  ASSERT_TRUE(result.out.starts_with("id=")) << result;
  const std::string id = result.line().substr(3);
  EXPECT_TRUE(bgtask::is_task_id(id)) << result;
  EXPECT_EQ(state_of(id), "running");
}

TEST_F(Start, WritesPrivateFilesOnly)
{
  const std::string id = start({"--", "echo", "hi"});
  EXPECT_EQ(wait_for(id), 0);
  for (const fs::path& path : {record_path(id), output_path(id), lock_path(id)}) {
    struct stat st
    {
    };
    ASSERT_EQ(::stat(path.c_str(), &st), 0) << path;
    EXPECT_EQ(st.st_mode & 07777, 0600u) << path;
  }
  EXPECT_EQ(task_entries(),
            (std::vector<std::string>{id + ".lock", id + ".output", id + ".status.json"}));
  for (const auto& name : dir_entries()) {
    struct stat st
    {
    };
    ASSERT_EQ(::lstat((dir() / name).c_str(), &st), 0) << name;
    EXPECT_EQ(st.st_mode & 077, 0u) << name << " is open to others";
  }
}

TEST_F(Start, RunsArgvVerbatim)
{
  const std::string id = start({"--", "printf", "%s|", "a b", "", "$HOME", "*", "--", "-c"});
  EXPECT_EQ(wait_for(id), 0);
  EXPECT_EQ(output_of(id), "a b||$HOME|*|--|-c|");
  const auto r = record(id);
  EXPECT_EQ(r.at("command"), (json::array{"printf", "%s|", "a b", "", "$HOME", "*", "--", "-c"}));
  EXPECT_EQ(r.at("shell"), json::value(false));
}

TEST_F(Start, CapturesStdoutAndStderrInTheOutputFile)
{
  const std::string id = start({"-c", "echo out; echo err >&2"});
  EXPECT_EQ(wait_for(id), 0);
  EXPECT_EQ(output_of(id), "out\nerr\n");
  EXPECT_EQ(record(id).at("output").at("bytes"), json::value(8));
}

TEST_F(Start, GivesTheCommandItsIdAndDirectory)
{
  const std::string id = start({"-c", "echo \"$BGTASK_ID $BGTASK_DIR\""});
  EXPECT_EQ(wait_for(id), 0);
  EXPECT_EQ(output_of(id), id + " " + dir().string() + "\n");
}

TEST_F(Start, QuietPrintsNothingAndADedupeHitToo)
{
  const Result first = bg({"start", "--quiet", "--dedupe", "--name", "job", "--", "sleep", "60"});
  EXPECT_EQ(first.exit_code, 0) << first;
  EXPECT_EQ(first.out, "") << first;
  const Result again = bg({"start", "-q", "--dedupe", "--name", "job", "--", "sleep", "60"});
  EXPECT_EQ(again.exit_code, 0) << again;
  EXPECT_EQ(again.out + again.err, "") << again;
  const Result listed = bg({"list", "--format", "jsonl"});
  EXPECT_EQ(std::count(listed.out.begin(), listed.out.end(), '\n'), 1) << listed;
  EXPECT_EQ(bg({"cancel", "--all", "--quiet"}).exit_code, 0);
}

TEST_F(Start, ReachesItsOwnBinaryUnderAShortPath)
{
  // cron's PATH does not name the folder bgtask is in: a task still finds it.
  e2e::RunOptions cron;
  cron.env = {"PATH=/usr/bin:/bin"};
  const Result started =
    bg({"start", "-c", "echo \"$BGTASK_BIN\"; bgtask progress --percent 5"}, cron);
  ASSERT_EQ(started.exit_code, 0) << started;
  const std::string id = started.out.substr(0, started.out.find('\n'));
  EXPECT_EQ(wait_for(id), 0) << output_of(id);
  EXPECT_EQ(output_of(id), fs::canonical(e2e::bgtask_binary()).string() + "\n");
}

TEST_F(Start, OverridesAnInheritedTaskId)
{
  const std::string id = start({"--env", "BGTASK_ID=0000000000zz", "-c", "echo \"$BGTASK_ID\""});
  EXPECT_EQ(wait_for(id), 0);
  EXPECT_EQ(output_of(id), id + "\n");
}

TEST_F(Start, PassesEnvValuesWithoutEverStoringThem)
{
  const std::string secret = "s3cr3t-" + std::to_string(::getpid()) + "-value";
  const std::string id =
    start({"--env", "BGTASK_TEST_SECRET=" + secret, "--env", "OTHER=x", "--cwd", work().string(),
           "-c", "printf %s \"$BGTASK_TEST_SECRET\" > secret.txt"});
  EXPECT_EQ(wait_for(id), 0);
  std::ifstream in(work() / "secret.txt");
  std::string seen;
  std::getline(in, seen);
  EXPECT_EQ(seen, secret);
  const auto r = record(id);
  EXPECT_EQ(r.at("env_names"), (json::array{"BGTASK_TEST_SECRET", "OTHER"}));
  EXPECT_EQ(record_bytes(id).find(secret), std::string::npos);
  for (const std::vector<std::string>& args : {std::vector<std::string>{"list", "--json"},
                                               {"status", "--json", id},
                                               {"wait", "--json", id},
                                               {"cancel", "--json", id},
                                               {"status", id},
                                               {"list"}}) {
    const Result result = bg(args);
    EXPECT_EQ(result.exit_code, 0) << result;
    EXPECT_EQ(result.out.find(secret), std::string::npos) << args.front();
    EXPECT_EQ(result.err.find(secret), std::string::npos) << args.front();
  }
  // No file below the directory holds it.
  for (const auto& entry : fs::recursive_directory_iterator(dir())) {
    if (!entry.is_regular_file()) {
      continue;
    }
    std::ifstream file(entry.path(), std::ios::binary);
    const std::string content((std::istreambuf_iterator<char>(file)),
                              std::istreambuf_iterator<char>());
    EXPECT_EQ(content.find(secret), std::string::npos) << entry.path();
  }
}

TEST_F(Start, NeverEchoesAnEnvValueInAnError)
{
  const Result result = bg({"start", "--env", "1BAD=hidden-value", "--", "true"});
  EXPECT_EQ(result.exit_code, 2) << result;
  EXPECT_EQ(result.err.find("hidden-value"), std::string::npos) << result;
  EXPECT_TRUE(dir_entries().empty());
}

TEST_F(Start, RunsInTheGivenDirectory)
{
  fs::create_directory(work() / "sub");
  const std::string id = start({"--cwd", (work() / "sub").string(), "--", "pwd"});
  EXPECT_EQ(wait_for(id), 0);
  EXPECT_EQ(output_of(id), (work() / "sub").string() + "\n");
  EXPECT_EQ(record(id).at("cwd"), json::value((work() / "sub").string()));
}

TEST_F(Start, ResolvesARelativeCwdAgainstTheCurrentDirectory)
{
  fs::create_directory(work() / "sub");
  e2e::RunOptions options;
  options.cwd = work();
  const Result result = bg({"start", "--cwd", "sub", "--", "pwd"}, options);
  ASSERT_EQ(result.exit_code, 0) << result;
  EXPECT_EQ(wait_for(result.line()), 0);
  EXPECT_EQ(output_of(result.line()), (work() / "sub").string() + "\n");
}

TEST_F(Start, RunsInTheCurrentDirectoryByDefault)
{
  e2e::RunOptions options;
  options.cwd = work();
  const Result result = bg({"start", "--", "pwd"}, options);
  ASSERT_EQ(result.exit_code, 0) << result;
  EXPECT_EQ(wait_for(result.line()), 0);
  EXPECT_EQ(output_of(result.line()), work().string() + "\n");
}

TEST_F(Start, RunsAShellString)
{
  const std::string script = "echo \"$((6 * 7))\" | tr 4 x; exit 3";
  const std::string id = start({"-c", script});
  EXPECT_EQ(wait_for(id), 3);
  EXPECT_EQ(output_of(id), "x2\n");
  const auto r = record(id);
  EXPECT_EQ(r.at("shell"), json::value(true));
  EXPECT_EQ(r.at("command"), (json::array{"/bin/sh", "-c", script}));
  EXPECT_EQ(r.at("state"), json::value("failed"));
  EXPECT_EQ(r.at("exit_code"), json::value(3));
}

TEST_F(Start, RecordsNameAndTimeout)
{
  const std::string id = start({"--name", "nightly", "--timeout", "1h30m", "--", "true"});
  EXPECT_EQ(wait_for(id), 0);
  const auto r = record(id);
  EXPECT_EQ(r.at("name"), json::value("nightly"));
  EXPECT_EQ(r.at("timeout_s"), json::value(5400.0));
  EXPECT_EQ(r.at("state"), json::value("succeeded"));
  EXPECT_EQ(r.at("exit_code"), json::value(0));
  EXPECT_TRUE(r.at("finished_at").is_string());
  EXPECT_TRUE(r.at("duration_s").is_number());
}

TEST_F(Start, ReportsACommandThatIsNotFoundWith127)
{
  for (const std::string command : {"bgtask-e2e-no-such-command", "/nonexistent/bin/tool"}) {
    const Result result = bg({"start", "--", command, "arg"});
    EXPECT_EQ(result.exit_code, 127) << result;
    ASSERT_EQ(result.out.size(), 13u) << result;
    EXPECT_NE(result.err.find("failed to start"), std::string::npos) << result;
    EXPECT_NE(result.err.find(command), std::string::npos) << result;
    const auto r = record(result.line());
    EXPECT_EQ(r.at("state"), json::value("failed")) << command;
    EXPECT_EQ(r.at("exit_code"), json::value(127)) << command;
    EXPECT_TRUE(r.at("error").is_string()) << command;
    EXPECT_TRUE(r.at("finished_at").is_string()) << command;
    EXPECT_EQ(wait_for(result.line()), 127);
  }
}

TEST_F(Start, ReportsACommandThatIsNotExecutableWith126)
{
  const fs::path script = work() / "script.sh";
  std::ofstream(script) << "#!/bin/sh\necho should not run\n";
  fs::permissions(script, fs::perms::owner_read | fs::perms::owner_write);
  for (const std::string& command : {script.string(), work().string()}) {
    const Result result = bg({"start", "--", command});
    EXPECT_EQ(result.exit_code, 126) << result;
    ASSERT_EQ(result.out.size(), 13u) << result;
    EXPECT_NE(result.err.find("failed to start"), std::string::npos) << result;
    const auto r = record(result.line());
    EXPECT_EQ(r.at("state"), json::value("failed"));
    EXPECT_EQ(r.at("exit_code"), json::value(126));
    EXPECT_TRUE(r.at("error").is_string());
    EXPECT_EQ(output_of(result.line()), "");
  }
}

// The command is looked up on PATH with execvp's rules.
TEST_F(Start, SearchesPathAsExecvpDoes)
{
  const fs::path denied = work() / "denied";
  const fs::path allowed = work() / "allowed";
  fs::create_directories(denied);
  fs::create_directories(allowed);
  std::ofstream(denied / "bgtask-e2e-tool") << "#!/bin/sh\necho denied\n";
  fs::permissions(denied / "bgtask-e2e-tool", fs::perms::owner_read | fs::perms::owner_write);
  // No interpreter line: the kernel cannot execute it, /bin/sh runs it.
  std::ofstream(allowed / "bgtask-e2e-tool") << "echo ran \"$@\"\n";
  fs::permissions(allowed / "bgtask-e2e-tool", fs::perms::owner_all);
  e2e::RunOptions options;
  options.env = {"PATH=" + denied.string() + ":" + allowed.string() + ":/usr/bin:/bin"};
  const Result found = bg({"start", "--", "bgtask-e2e-tool", "a", "b c"}, options);
  ASSERT_EQ(found.exit_code, 0) << found;
  EXPECT_EQ(wait_for(found.line()), 0);
  EXPECT_EQ(output_of(found.line()), "ran a b c\n");
  // Found but not executable, and nothing after it: EACCES, 126.
  options.env = {"PATH=" + denied.string()};
  const Result refused = bg({"start", "--", "bgtask-e2e-tool"}, options);
  EXPECT_EQ(refused.exit_code, 126) << refused;
  EXPECT_NE(refused.err.find("Permission denied"), std::string::npos) << refused;
  EXPECT_EQ(output_of(refused.line()), "");
  // A path runs as it is, a script without an interpreter line too.
  const Result direct = bg({"start", "--", (allowed / "bgtask-e2e-tool").string(), "x"});
  ASSERT_EQ(direct.exit_code, 0) << direct;
  EXPECT_EQ(wait_for(direct.line()), 0);
  EXPECT_EQ(output_of(direct.line()), "ran x\n");
}

TEST_F(Start, RecordsABadCwdAsAFailedStart)
{
  const fs::path missing = work() / "missing";
  const Result result = bg({"start", "--cwd", missing.string(), "--", "true"});
  EXPECT_NE(result.exit_code, 0) << result;
  ASSERT_EQ(result.out.size(), 13u) << result;
  EXPECT_NE(result.err.find(missing.string()), std::string::npos) << result;
  const auto r = record(result.line());
  EXPECT_EQ(r.at("state"), json::value("failed"));
  EXPECT_EQ(r.at("exit_code"), json::value(result.exit_code));
  ASSERT_TRUE(r.at("error").is_string());
  EXPECT_NE(std::string(r.at("error").as_string()).find("directory"), std::string::npos);
  EXPECT_FALSE(fs::exists(missing));
}

TEST_F(Start, RefusesAnEmptyOrConflictingCommand)
{
  for (const std::vector<std::string>& args : {std::vector<std::string>{"start"},
                                               {"start", "--"},
                                               {"start", "-c", "true", "--", "true"},
                                               {"start", "--", ""},
                                               {"start", "--timeout", "0s", "--", "true"}}) {
    const Result result = bg(args);
    EXPECT_EQ(result.exit_code, 2) << result;
    EXPECT_EQ(result.out, "") << result;
  }
  EXPECT_TRUE(dir_entries().empty());
}

TEST_F(Start, WorksInADirectoryWhosePathNeedsQuoting)
{
  const fs::path odd = work() / "task dir 'with' \"quotes\" $HOME";
  const Result started = e2e::run(
    {e2e::bgtask_binary(), "--dir", odd.string(), "start", "-c", "printf '%s' \"$BGTASK_DIR\""});
  ASSERT_EQ(started.exit_code, 0) << started;
  const Result waited =
    e2e::run({e2e::bgtask_binary(), "--dir", odd.string(), "wait", started.line()});
  EXPECT_EQ(waited.exit_code, 0) << waited;
  const Result output =
    e2e::run({e2e::bgtask_binary(), "--dir", odd.string(), "output", started.line()});
  EXPECT_EQ(output.out, odd.string());
}

TEST_F(Start, GivesTheCommandAnAbsoluteDirectoryForARelativeDir)
{
  e2e::RunOptions options;
  options.cwd = work();
  const Result started =
    e2e::run({e2e::bgtask_binary(), "--dir", "tasks", "start", "-c", "printf '%s' \"$BGTASK_DIR\""},
             options);
  ASSERT_EQ(started.exit_code, 0) << started;
  EXPECT_EQ(wait_for(started.line()), 0);
  EXPECT_EQ(output_of(started.line()), dir().string());
  EXPECT_EQ(record(started.line()).at("output").at("path"),
            json::value(output_path(started.line()).string()));
}
