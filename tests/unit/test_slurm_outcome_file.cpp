// Outcome files: what the job's wrapper writes (run with /bin/sh and perl,
// as a node would), and which files bgtask believes.

#include <bgtask/exec/slurm/slurm_job_wrapper.hpp>
#include <bgtask/exec/slurm/slurm_outcome_file.hpp>
#include <bgtask/util/timestamp.hpp>

#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using bgtask::OutcomeFileVerdict;
using bgtask::TaskRecord;
using bgtask::TaskState;

namespace {

constexpr const char* k_id = "01hx2k3m4n5p";

TaskRecord queued_record()
{
  TaskRecord r;
  r.id = k_id;
  r.state = TaskState::queued;
  r.created_at = *bgtask::parse_timestamp("2026-11-29T19:25:00.000Z");
  r.slurm = bgtask::SlurmJobRef{};
  r.slurm->job_id = "41";
  r.slurm->job_name = std::string("bgtask-") + k_id;
  return r;
}

const auto k_now = *bgtask::parse_timestamp("2026-11-29T19:30:00.000Z");

std::string text(const std::string& exit_code, const std::string& signal,
                 const std::string& received = "", const std::string& job = "41",
                 const std::string& finished = "2026-11-29T19:26:40.000Z")
{
  return std::string(R"({"schema":1,"task":")") + k_id + R"(","job_id":")" + job +
         R"(","job_name":"bgtask-)" + k_id + R"(","exit_code":)" + exit_code + R"(,"signal":)" +
         signal + R"(,"signals_received":[)" + received +
         R"(],"started_at":"2026-11-29T19:25:13.000Z","finished_at":")" + finished +
         R"(","node":"n1"})" + "\n";
}

struct Wrapped
{
  int status = 0; // as waitpid gives it
  std::string file;
};

// Runs `argv` under the batch script's last lines in a temp task
// directory, as job 41 named bgtask-ID (run `restart_count` of it, if
// given, with `earlier_file` left by a run before), and reads the outcome
// file.
Wrapped run_wrapped(const std::vector<std::string>& argv, int send_signal = 0,
                    const char* restart_count = nullptr, const std::string& earlier_file = "")
{
  const auto dir =
    std::filesystem::temp_directory_path() / ("bgtask-wrapper-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  if (!earlier_file.empty()) {
    std::ofstream(dir / (std::string(k_id) + ".outcome.json")) << earlier_file;
  }
  const auto script = dir / "job.sh";
  std::ofstream(script) << bgtask::slurm_run_command_lines(argv);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setenv("BGTASK_ID", k_id, 1);
    ::setenv("BGTASK_DIR", dir.c_str(), 1);
    ::setenv("SLURM_JOB_ID", "41", 1);
    ::setenv("SLURM_JOB_NAME", (std::string("bgtask-") + k_id).c_str(), 1);
    ::unsetenv("SLURM_ARRAY_TASK_ID");
    if (restart_count != nullptr) {
      ::setenv("SLURM_RESTART_COUNT", restart_count, 1);
    } else {
      ::unsetenv("SLURM_RESTART_COUNT");
    }
    ::execl("/bin/sh", "sh", script.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  if (send_signal != 0) {
    ::usleep(500000);
    ::kill(pid, send_signal);
  }
  Wrapped result;
  ::waitpid(pid, &result.status, 0);
  std::ifstream in(dir / (std::string(k_id) + ".outcome.json"));
  std::stringstream content;
  content << in.rdbuf();
  result.file = content.str();
  std::filesystem::remove_all(dir);
  return result;
}

} // namespace

TEST(SlurmJobWrapper, KeepsTheExitStatusAndWritesIt)
{
  const auto run = run_wrapped({"sh", "-c", "exit 3"});
  ASSERT_TRUE(WIFEXITED(run.status));
  EXPECT_EQ(WEXITSTATUS(run.status), 3);
  const auto reading = bgtask::judge_outcome_text(run.file, queued_record(), bgtask::now());
  ASSERT_EQ(reading.verdict, OutcomeFileVerdict::ended) << reading.problem << run.file;
  EXPECT_EQ(reading.outcome.state, TaskState::failed);
  EXPECT_EQ(reading.outcome.exit_code, 3);
}

TEST(SlurmJobWrapper, AnExitStatusAbove128IsNoSignal)
{
  const auto run = run_wrapped({"sh", "-c", "exit 139"});
  ASSERT_TRUE(WIFEXITED(run.status));
  EXPECT_EQ(WEXITSTATUS(run.status), 139);
  EXPECT_NE(run.file.find(R"("exit_code":139,"signal":null)"), std::string::npos) << run.file;
}

TEST(SlurmJobWrapper, DiesOfTheCommandsSignal)
{
  const auto run = run_wrapped({"sh", "-c", "kill -SEGV $$"});
  ASSERT_TRUE(WIFSIGNALED(run.status));
  EXPECT_EQ(WTERMSIG(run.status), SIGSEGV);
  EXPECT_NE(run.file.find(R"("exit_code":null,"signal":11)"), std::string::npos) << run.file;
  EXPECT_EQ(bgtask::judge_outcome_text(run.file, queued_record(), bgtask::now()).verdict,
            OutcomeFileVerdict::signalled);
}

TEST(SlurmJobWrapper, ForwardsSignalsToTheCommand)
{
  // The command traps USR1 and exits 5: the signal reached it, and the
  // outcome says a signal came, so Slurm has the last word.
  const auto run =
    run_wrapped({"sh", "-c", "trap 'exit 5' USR1; while :; do sleep 0.1; done"}, SIGUSR1);
  ASSERT_TRUE(WIFEXITED(run.status));
  EXPECT_EQ(WEXITSTATUS(run.status), 5);
  EXPECT_NE(run.file.find(R"("signals_received":["SIGUSR1"])"), std::string::npos) << run.file;
  EXPECT_EQ(bgtask::judge_outcome_text(run.file, queued_record(), bgtask::now()).verdict,
            OutcomeFileVerdict::signalled);
}

TEST(SlurmJobWrapper, TimesAreToTheMillisecondWithTimeHiRes)
{
  if (std::system("perl -MTime::HiRes -e 1 2>/dev/null") != 0) {
    GTEST_SKIP() << "perl's Time::HiRes is not installed: the times are whole seconds";
  }
  const auto run = run_wrapped({"sleep", "0.3"});
  const auto reading = bgtask::judge_outcome_text(run.file, queued_record(), bgtask::now());
  ASSERT_EQ(reading.verdict, OutcomeFileVerdict::ended) << reading.problem << run.file;
  const auto took = *reading.outcome.finished_at - *reading.outcome.started_at;
  EXPECT_GE(std::chrono::duration_cast<std::chrono::milliseconds>(took).count(), 290) << run.file;
  // Whole seconds give .000 in both times (real ones, once in a million).
  const auto first = run.file.find(".000Z");
  EXPECT_TRUE(first == std::string::npos || run.file.find(".000Z", first + 1) == std::string::npos)
    << run.file;
}

TEST(SlurmJobWrapper, ARestartedRunRemovesTheEarlierRunsFile)
{
  // The command fails if the earlier run's file is still there while it runs.
  const auto run = run_wrapped({"sh", "-c", "test ! -e \"$BGTASK_DIR/$BGTASK_ID.outcome.json\""}, 0,
                               "1", "{\"from\":\"the first run\"}\n");
  ASSERT_TRUE(WIFEXITED(run.status));
  EXPECT_EQ(WEXITSTATUS(run.status), 0) << run.file;
  EXPECT_NE(run.file.find(R"("restart_count":1,)"), std::string::npos) << run.file;
}

TEST(SlurmJobWrapper, AMissingCommandExits127)
{
  const auto run = run_wrapped({"/nonexistent/command"});
  ASSERT_TRUE(WIFEXITED(run.status));
  EXPECT_EQ(WEXITSTATUS(run.status), 127);
}

TEST(SlurmOutcomeFile, SuccessAndFailureFromAnExitStatus)
{
  const auto ok = bgtask::judge_outcome_text(text("0", "null"), queued_record(), k_now);
  ASSERT_EQ(ok.verdict, OutcomeFileVerdict::ended) << ok.problem;
  EXPECT_EQ(ok.outcome.state, TaskState::succeeded);
  EXPECT_EQ(ok.outcome.node, "n1");
  EXPECT_EQ(ok.outcome.finished_at, bgtask::parse_timestamp("2026-11-29T19:26:40.000Z"));
  const auto failed = bgtask::judge_outcome_text(text("2", "null"), queued_record(), k_now);
  EXPECT_EQ(failed.outcome.state, TaskState::failed);
  EXPECT_EQ(failed.outcome.reason, "exited with status 2");
}

TEST(SlurmOutcomeFile, ASignalOrAReceivedSignalLeavesItToSlurm)
{
  EXPECT_EQ(bgtask::judge_outcome_text(text("null", "15"), queued_record(), k_now).verdict,
            OutcomeFileVerdict::signalled);
  // A command that exits 0 on SIGTERM: a cancel or a time limit, as Slurm knows.
  EXPECT_EQ(
    bgtask::judge_outcome_text(text("0", "null", R"("SIGTERM")"), queued_record(), k_now).verdict,
    OutcomeFileVerdict::signalled);
}

TEST(SlurmOutcomeFile, AnEarlierRunsFileCountsForNothingOnceTheJobWasRequeued)
{
  auto record = queued_record();
  record.events.push_back(bgtask::TaskEvent{"requeued", k_now, std::string("41 is pending again")});
  auto of_run = [](const std::string& restarts) {
    auto t = text("5", "null");
    t.insert(t.find(R"("exit_code")"), R"("restart_count":)" + restarts + ",");
    return t;
  };
  // No restart_count (an older wrapper) is the first run's, as is 0.
  EXPECT_EQ(bgtask::judge_outcome_text(text("5", "null"), record, k_now).verdict,
            OutcomeFileVerdict::absent);
  EXPECT_EQ(bgtask::judge_outcome_text(of_run("0"), record, k_now).verdict,
            OutcomeFileVerdict::absent);
  const auto second = bgtask::judge_outcome_text(of_run("1"), record, k_now);
  ASSERT_EQ(second.verdict, OutcomeFileVerdict::ended) << second.problem;
  EXPECT_EQ(second.outcome.exit_code, 5);
  EXPECT_EQ(bgtask::judge_outcome_text(of_run("0"), queued_record(), k_now).verdict,
            OutcomeFileVerdict::ended);
  EXPECT_EQ(bgtask::judge_outcome_text(of_run("-1"), record, k_now).verdict,
            OutcomeFileVerdict::refused);
}

TEST(SlurmOutcomeFile, RefusesWhatDoesNotMatchTheTask)
{
  const auto record = queued_record();
  const std::string good = text("0", "null");
  const std::vector<std::pair<std::string, std::string>> bad{
    {good.substr(0, good.size() / 2), "truncated"},
    {"", "empty"},
    {text("0", "null", "", "42"), "another job"},
    {text("0", "null", "", "41_1"), "an array element's id"},
    {text("0", "9"), "both an exit code and a signal"},
    {text("null", "null"), "neither"},
    {text("256", "null"), "exit code out of range"},
    {text("0", "null", "", "41", "2026-11-29T19:20:00.000Z"), "ended before it was created"},
    {text("0", "null", "", "41", "2026-11-29T20:00:00.000Z"), "ended in the future"},
    {R"({"schema":2})", "another schema"},
  };
  for (const auto& [content, what] : bad) {
    const auto reading = bgtask::judge_outcome_text(content, record, k_now);
    EXPECT_EQ(reading.verdict, OutcomeFileVerdict::refused) << what;
    EXPECT_FALSE(reading.problem.empty()) << what;
  }
  TaskRecord renamed = record;
  renamed.slurm->job_name = "train-bgtask-" + std::string(k_id);
  EXPECT_EQ(bgtask::judge_outcome_text(good, renamed, k_now).verdict, OutcomeFileVerdict::refused);
}

TEST(SlurmOutcomeFile, OnlyTheDirectoryOwnersPrivateRegularFileCounts)
{
  const mode_t file = S_IFREG | 0600;
  EXPECT_FALSE(bgtask::outcome_file_problem(1000, file, 1, 200, 1000));
  EXPECT_TRUE(bgtask::outcome_file_problem(65534, file, 1, 200, 1000)); // another user's
  EXPECT_TRUE(bgtask::outcome_file_problem(1000, S_IFREG | 0622, 1, 200, 1000));
  EXPECT_TRUE(bgtask::outcome_file_problem(1000, S_IFREG | 0620, 1, 200, 1000));
  EXPECT_TRUE(bgtask::outcome_file_problem(1000, file, 2, 200, 1000)); // a hard link
  EXPECT_TRUE(bgtask::outcome_file_problem(1000, file, 1, 0, 1000));
  EXPECT_TRUE(bgtask::outcome_file_problem(1000, file, 1, 5000, 1000));
  EXPECT_TRUE(bgtask::outcome_file_problem(1000, S_IFIFO | 0600, 1, 0, 1000));
}
