// Mapping Slurm job states to task states, on synthetic and on captured
// real answers (tests/data/slurm/).

#include <bgtask/core/exit_status.hpp>
#include <bgtask/exec/slurm/slurm_dependencies.hpp>
#include <bgtask/exec/slurm/slurm_outcome.hpp>

#include <gtest/gtest.h>

#include "slurm_test_data.hpp"
#include <algorithm>
#include <ctime>

using bgtask::SlurmJobInfo;
using bgtask::SlurmOutcome;
using bgtask::TaskRecord;
using bgtask::TaskState;
using slurm_test_data::read;

namespace {

SlurmJobInfo job(std::string state, std::string exit_code = "0:0")
{
  SlurmJobInfo j;
  j.job_id = "7";
  j.name = "bgtask-01hx2k3m4n5p";
  j.state = std::move(state);
  j.exit_code = std::move(exit_code);
  j.start_time = "2026-11-29T19:25:13";
  j.end_time = "2026-11-29T19:26:40";
  j.node_list = "node1";
  return j;
}

TaskState state_of(std::string name)
{
  const auto outcome = bgtask::slurm_outcome(job(std::move(name)));
  if (!outcome) {
    throw std::runtime_error("no outcome");
  }
  return outcome->state;
}

TaskRecord queued_record()
{
  TaskRecord r;
  r.id = "01hx2k3m4n5p";
  r.command = {"true"};
  r.cwd = "/";
  r.executor = "slurm";
  r.slurm = bgtask::SlurmJobRef{};
  r.slurm->job_id = "7";
  r.slurm->cluster = "ci";
  r.state = TaskState::queued;
  r.created_at = bgtask::now();
  return r;
}

std::vector<SlurmJobInfo> jobcomp_jobs()
{
  const auto text = read("jobcomp.log");
  std::vector<SlurmJobInfo> jobs;
  std::size_t at = 0;
  while (at < text.size()) {
    const auto end = text.find('\n', at);
    if (auto j = bgtask::parse_jobcomp_line(std::string_view(text).substr(at, end - at))) {
      jobs.push_back(*j);
    }
    at = end == std::string::npos ? text.size() : end + 1;
  }
  return jobs;
}

SlurmOutcome outcome_of(const std::vector<SlurmJobInfo>& jobs, const std::string& name)
{
  const auto it =
    std::find_if(jobs.begin(), jobs.end(), [&](const SlurmJobInfo& j) { return j.name == name; });
  if (it == jobs.end()) {
    throw std::runtime_error("no job named " + name);
  }
  const auto outcome = bgtask::slurm_outcome(*it);
  if (!outcome) {
    throw std::runtime_error("no outcome for " + name);
  }
  return *outcome;
}

} // namespace

TEST(SlurmStateMapping, FollowsTheDocumentedTable)
{
  EXPECT_EQ(state_of("PENDING"), TaskState::queued);
  EXPECT_EQ(state_of("REQUEUED"), TaskState::queued);
  EXPECT_EQ(state_of("RUNNING"), TaskState::running);
  EXPECT_EQ(state_of("COMPLETING"), TaskState::running);
  EXPECT_EQ(state_of("SUSPENDED"), TaskState::running);
  EXPECT_EQ(state_of("COMPLETED"), TaskState::succeeded);
  EXPECT_EQ(state_of("FAILED"), TaskState::failed);
  EXPECT_EQ(state_of("CANCELLED"), TaskState::cancelled);
  EXPECT_EQ(state_of("TIMEOUT"), TaskState::timed_out);
  for (const auto* name : {"NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED", "BOOT_FAIL", "DEADLINE"}) {
    const auto outcome = bgtask::slurm_outcome(job(name));
    ASSERT_TRUE(outcome) << name;
    EXPECT_EQ(outcome->state, TaskState::failed) << name;
    EXPECT_NE(outcome->reason.find(name), std::string::npos) << outcome->reason;
  }
  EXPECT_FALSE(bgtask::slurm_outcome(job("SOMETHING_NEW")));
}

TEST(SlurmStateMapping, SplitsExitCodeIntoCodeAndSignal)
{
  const auto exited = bgtask::slurm_outcome(job("FAILED", "3:0"));
  ASSERT_TRUE(exited);
  EXPECT_EQ(exited->exit_code, 3);
  EXPECT_FALSE(exited->signal);
  EXPECT_EQ(exited->reason, "exited with status 3");

  const auto killed = bgtask::slurm_outcome(job("FAILED", "0:9"));
  ASSERT_TRUE(killed);
  EXPECT_FALSE(killed->exit_code);
  EXPECT_EQ(killed->signal, 9);
  EXPECT_EQ(killed->reason, "killed by SIGKILL");

  auto launch_failure = job("FAILED", "0:0");
  launch_failure.reason = "JobLaunchFailure";
  const auto unknown = bgtask::slurm_outcome(launch_failure);
  ASSERT_TRUE(unknown);
  EXPECT_FALSE(unknown->exit_code);
  EXPECT_FALSE(unknown->signal);
  EXPECT_EQ(unknown->reason, "Slurm state FAILED (JobLaunchFailure)");

  const auto oom = bgtask::slurm_outcome(job("OUT_OF_MEMORY", "0:125"));
  ASSERT_TRUE(oom);
  EXPECT_EQ(oom->signal, 9); // 125 is no signal: the OOM killer's SIGKILL

  const auto ok = bgtask::slurm_outcome(job("COMPLETED"));
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->exit_code, 0);
}

TEST(SlurmStateMapping, KnowsWhenAJobNeverRan)
{
  auto pending = job("CANCELLED");
  pending.node_list = "(null)";
  const auto never_ran = bgtask::slurm_outcome(pending);
  ASSERT_TRUE(never_ran);
  EXPECT_FALSE(never_ran->started_at);

  const auto ran = bgtask::slurm_outcome(job("CANCELLED", "0:15"));
  ASSERT_TRUE(ran);
  EXPECT_TRUE(ran->started_at);
  EXPECT_EQ(ran->signal, 15);
  EXPECT_EQ(ran->node, "node1");
}

TEST(SlurmStateMapping, MapsTheCapturedControllerAnswers)
{
  const auto jobs = bgtask::parse_squeue_jobs(read("squeue_mixed.txt"));
  EXPECT_EQ(outcome_of(jobs, "bgtask-exit3").state, TaskState::failed);
  EXPECT_EQ(outcome_of(jobs, "bgtask-exit3").exit_code, 3);
  EXPECT_EQ(outcome_of(jobs, "bgtask-kill9").signal, 9);
  EXPECT_EQ(outcome_of(jobs, "t1").state, TaskState::cancelled);
  EXPECT_EQ(outcome_of(jobs, "t1").signal, 15);
  EXPECT_EQ(outcome_of(jobs, "bgtask-held").state, TaskState::queued);
  EXPECT_EQ(outcome_of(jobs, "bgtask-run").state, TaskState::running);
}

TEST(SlurmStateMapping, AgreesBetweenJobcompAndSacct)
{
  const auto jobcomp = jobcomp_jobs();
  const auto sacct = bgtask::parse_sacct_jobs(read("sacct_c.txt"));
  for (const auto* name : {"bgtask-ok", "bgtask-exit3", "bgtask-kill9", "bgtask-timeout",
                           "bgtask-busy", "bgtask-pending"}) {
    EXPECT_EQ(outcome_of(jobcomp, name).state, outcome_of(sacct, name).state) << name;
  }
  // The log is right about exit codes of failures, and writes 0:0 for
  // cancellations and time limits: a job Slurm stopped gets the signal
  // accounting reports, whoever answers; one that never ran gets none.
  EXPECT_EQ(outcome_of(jobcomp, "bgtask-exit3").exit_code, 3);
  EXPECT_EQ(outcome_of(jobcomp, "bgtask-kill9").signal, 9);
  EXPECT_EQ(outcome_of(jobcomp, "bgtask-timeout").state, TaskState::timed_out);
  for (const auto* name : {"bgtask-timeout", "bgtask-busy", "bgtask-pending"}) {
    EXPECT_EQ(outcome_of(jobcomp, name).signal, outcome_of(sacct, name).signal) << name;
    EXPECT_FALSE(outcome_of(sacct, name).exit_code) << name;
  }
  EXPECT_EQ(outcome_of(sacct, "bgtask-busy").signal, 15);
  EXPECT_FALSE(outcome_of(sacct, "bgtask-pending").signal);
}

TEST(SlurmTime, ParsesLocalTimesAndRejectsTheRest)
{
  const auto parsed = bgtask::parse_slurm_time("2026-11-29T19:25:13");
  ASSERT_TRUE(parsed);
  std::tm tm{};
  tm.tm_year = 2026 - 1900;
  tm.tm_mon = 10;
  tm.tm_mday = 29;
  tm.tm_hour = 19;
  tm.tm_min = 25;
  tm.tm_sec = 13;
  tm.tm_isdst = -1;
  EXPECT_EQ(std::chrono::system_clock::to_time_t(*parsed), std::mktime(&tm));
  for (const auto* text :
       {"Unknown", "None", "N/A", "", "2026-11-29 19:25:13", "2026-11-29T19:25:13Z"}) {
    EXPECT_FALSE(bgtask::parse_slurm_time(text)) << text;
  }
}

TEST(SlurmExitCode, ParsesCodeColonSignal)
{
  EXPECT_EQ(bgtask::parse_slurm_exit_code("3:0"), std::pair(3, 0));
  EXPECT_EQ(bgtask::parse_slurm_exit_code("0:15"), std::pair(0, 15));
  for (const auto* text : {"", "3", "a:b", "3:", ":0", "-1:0"}) {
    EXPECT_FALSE(bgtask::parse_slurm_exit_code(text)) << text;
  }
}

TEST(ApplySlurmOutcome, MarksAQueuedTaskRunningOnce)
{
  TaskRecord record = queued_record();
  const auto running = bgtask::slurm_outcome(job("RUNNING"));
  ASSERT_TRUE(running);
  EXPECT_TRUE(bgtask::apply_slurm_outcome(record, *running));
  EXPECT_EQ(record.state, TaskState::running);
  EXPECT_EQ(record.started_at, bgtask::parse_slurm_time("2026-11-29T19:25:13"));
  ASSERT_FALSE(record.events.empty());
  EXPECT_EQ(record.events.back().kind, "started");
  EXPECT_EQ(record.events.back().message, "Slurm job 7 on node1");
  EXPECT_FALSE(bgtask::apply_slurm_outcome(record, *running));
}

TEST(ApplySlurmOutcome, FinishesWithSlurmsTimes)
{
  TaskRecord record = queued_record();
  const auto failed = bgtask::slurm_outcome(job("FAILED", "3:0"));
  ASSERT_TRUE(failed);
  EXPECT_TRUE(bgtask::apply_slurm_outcome(record, *failed));
  EXPECT_EQ(record.state, TaskState::failed);
  EXPECT_EQ(record.exit_code, 3);
  EXPECT_EQ(record.error, "exited with status 3");
  EXPECT_EQ(record.finished_at, bgtask::parse_slurm_time("2026-11-29T19:26:40"));
  EXPECT_EQ(record.duration_s, 87.0);
  EXPECT_EQ(record.events.back().kind, "finished");

  const auto later = bgtask::slurm_outcome(job("COMPLETED"));
  ASSERT_TRUE(later);
  EXPECT_FALSE(bgtask::apply_slurm_outcome(record, *later)); // final stays final
  EXPECT_EQ(record.state, TaskState::failed);
}

TEST(ApplySlurmOutcome, SaysWhyACancelledOrTimedOutTaskEnded)
{
  TaskRecord asked = queued_record();
  asked.cancel_request = bgtask::CancelRequest{bgtask::now(), 5};
  const auto cancelled = bgtask::slurm_outcome(job("CANCELLED"));
  ASSERT_TRUE(cancelled);
  EXPECT_TRUE(bgtask::apply_slurm_outcome(asked, *cancelled));
  EXPECT_EQ(asked.error, "cancelled on request");

  TaskRecord not_asked = queued_record();
  EXPECT_TRUE(bgtask::apply_slurm_outcome(not_asked, *cancelled));
  EXPECT_EQ(not_asked.error, "cancelled in Slurm");

  TaskRecord limited = queued_record();
  limited.timeout_s = 60;
  limited.timeout_s = 5;
  auto limit = job("TIMEOUT", "0:15");
  limit.time_limit = "00:01:00";
  const auto timed_out = bgtask::slurm_outcome(limit);
  ASSERT_TRUE(timed_out);
  EXPECT_TRUE(bgtask::apply_slurm_outcome(limited, *timed_out));
  EXPECT_EQ(limited.state, TaskState::timed_out);
  EXPECT_EQ(limited.signal, 15);
  EXPECT_EQ(limited.error, "Slurm time limit reached (TimeLimit=00:01:00), from --timeout 5.0s "
                           "rounded up to whole minutes");
}

TEST(ApplySlurmOutcome, NamesTheTimeLimitAsTheControllerDoesWhoeverAnswers)
{
  // The jobcomp log and `sacct -c` give whole minutes.
  for (const auto& [given, shown] : std::vector<std::pair<std::string, std::string>>{
         {"00:01:00", "00:01:00"}, {"1", "00:01:00"}, {"90", "01:30:00"}, {"1500", "1-01:00:00"}}) {
    auto limit = job("TIMEOUT");
    limit.time_limit = given;
    const auto outcome = bgtask::slurm_outcome(limit);
    ASSERT_TRUE(outcome);
    EXPECT_EQ(outcome->reason, "Slurm time limit reached (TimeLimit=" + shown + ")") << given;
  }
}

TEST(ApplySlurmOutcome, RecordsOutOfMemoryAsOom)
{
  // What the controller reports for a job its cgroup killed for memory.
  const auto outcome = bgtask::slurm_outcome(job("OUT_OF_MEMORY", "0:125"));
  ASSERT_TRUE(outcome);
  TaskRecord record = queued_record();
  EXPECT_TRUE(bgtask::apply_slurm_outcome(record, *outcome));
  EXPECT_EQ(record.state, TaskState::failed);
  EXPECT_EQ(record.reason, "oom");
  EXPECT_EQ(record.signal, 9);
  EXPECT_FALSE(record.exit_code);
  ASSERT_TRUE(record.error);
  EXPECT_NE(record.error->find("out of memory"), std::string::npos);
  EXPECT_EQ(bgtask::exit_status_of(record), 137);
}

TEST(ApplySlurmOutcome, EndsATaskWhoseDependencyFailed)
{
  auto never = job("CANCELLED");
  never.reason = "DependencyNeverSatisfied";
  never.node_list = "(null)";
  const auto outcome = bgtask::slurm_outcome(never);
  ASSERT_TRUE(outcome);
  TaskRecord record = queued_record();
  EXPECT_TRUE(bgtask::apply_slurm_outcome(record, *outcome));
  EXPECT_EQ(record.state, TaskState::failed);
  EXPECT_FALSE(record.started_at);
  ASSERT_TRUE(record.error);
  EXPECT_NE(record.error->find("dependency did not succeed"), std::string::npos) << *record.error;
}

TEST(FailedDependency, NamesADependencyThatFailedBeforeTheJobWasCancelled)
{
  const auto cancelled_at = bgtask::parse_slurm_time("2026-11-29T19:26:40");
  ASSERT_TRUE(cancelled_at);
  TaskRecord succeeded = queued_record();
  succeeded.id = "0aaaaaaaaaaa";
  succeeded.state = TaskState::succeeded;
  succeeded.finished_at = *cancelled_at - std::chrono::seconds(5);
  TaskRecord running = queued_record();
  running.id = "0bbbbbbbbbbb";
  running.state = TaskState::running;
  TaskRecord failed = queued_record();
  failed.id = "0ccccccccccc";
  failed.state = TaskState::failed;
  failed.exit_code = 3;
  // In the same second (Slurm's times are whole seconds), a little later.
  failed.finished_at = *cancelled_at + std::chrono::milliseconds(400);

  const auto reason = bgtask::failed_dependency({succeeded, running, failed}, cancelled_at);
  ASSERT_TRUE(reason);
  EXPECT_EQ(reason->rfind("dependency 0ccccccccccc did not succeed: ", 0), 0u) << *reason;
  EXPECT_TRUE(bgtask::failed_dependency({failed}, std::nullopt));
  // Cancelled before the dependency failed: someone else cancelled it.
  failed.finished_at = *cancelled_at + std::chrono::seconds(1);
  EXPECT_FALSE(bgtask::failed_dependency({succeeded, running, failed}, cancelled_at));
  EXPECT_FALSE(bgtask::failed_dependency({succeeded, running}, cancelled_at));
}

TEST(ApplySlurmOutcome, KeepsThePendingReasonWhileQueued)
{
  TaskRecord record = queued_record();
  auto held = job("PENDING");
  held.reason = "JobHeldUser";
  held.node_list = "(null)";
  const auto outcome = bgtask::slurm_outcome(held);
  ASSERT_TRUE(outcome);
  EXPECT_TRUE(bgtask::apply_slurm_outcome(record, *outcome));
  EXPECT_EQ(record.state, TaskState::queued);
  EXPECT_EQ(record.slurm->pending_reason, "JobHeldUser");
  EXPECT_EQ(record.events.back().kind, "pending");
  EXPECT_FALSE(bgtask::apply_slurm_outcome(record, *outcome)); // the same reason again

  held.reason = "PartitionDown";
  EXPECT_TRUE(bgtask::apply_slurm_outcome(record, *bgtask::slurm_outcome(held)));
  EXPECT_EQ(record.slurm->pending_reason, "PartitionDown");
  held.reason = "None";
  EXPECT_TRUE(bgtask::apply_slurm_outcome(record, *bgtask::slurm_outcome(held)));
  EXPECT_FALSE(record.slurm->pending_reason);

  auto two_nodes = job("RUNNING");
  two_nodes.node_list = "n[1-2]";
  EXPECT_TRUE(bgtask::apply_slurm_outcome(record, *bgtask::slurm_outcome(two_nodes)));
  EXPECT_EQ(record.events.back().message, "Slurm job 7 on n[1-2]");
  EXPECT_FALSE(record.slurm->pending_reason);
}

TEST(ApplySlurmOutcome, RecordsAVanishedJobAsLost)
{
  TaskRecord record = queued_record();
  EXPECT_TRUE(bgtask::apply_slurm_outcome(record, bgtask::vanished_job_outcome("gone")));
  EXPECT_EQ(record.state, TaskState::lost);
  EXPECT_EQ(record.error, "gone");
  EXPECT_FALSE(record.exit_code);
}

TEST(ApplySlurmOutcome, NotesAMissingJobBeforeCallingItLost)
{
  TaskRecord record = queued_record();
  record.state = TaskState::running;
  const auto missing = bgtask::vanished_job_outcome("gone", false);
  EXPECT_TRUE(bgtask::apply_slurm_outcome(record, missing));
  EXPECT_EQ(record.state, TaskState::running);
  ASSERT_TRUE(record.slurm->missing_since);
  EXPECT_EQ(record.events.back().kind, "missing");
  const auto since = *record.slurm->missing_since;
  EXPECT_FALSE(bgtask::apply_slurm_outcome(record, missing)); // the first time counts
  EXPECT_EQ(record.slurm->missing_since, since);

  // Accounting caught up: the job is found, and no longer missing.
  const auto failed = bgtask::slurm_outcome(job("FAILED", "4:0"));
  ASSERT_TRUE(failed);
  TaskRecord found = record;
  EXPECT_TRUE(bgtask::apply_slurm_outcome(found, *failed));
  EXPECT_EQ(found.state, TaskState::failed);
  EXPECT_EQ(found.exit_code, 4);
  EXPECT_FALSE(found.slurm->missing_since);

  TaskRecord still_running = record;
  EXPECT_TRUE(bgtask::apply_slurm_outcome(still_running, *bgtask::slurm_outcome(job("RUNNING"))));
  EXPECT_FALSE(still_running.slurm->missing_since);

  EXPECT_TRUE(bgtask::apply_slurm_outcome(record, bgtask::vanished_job_outcome("gone", true)));
  EXPECT_EQ(record.state, TaskState::lost);
}

TEST(AccountedJob, PicksTheTasksRowAmongDuplicatesAndAcceptsTheFreshPlaceholder)
{
  const auto created =
    *bgtask::parse_slurm_time("2026-11-29T19:25:10") + std::chrono::milliseconds(400);
  auto ours = job("FAILED", "9:0");
  ours.submit_time = "2026-11-29T19:25:10";
  auto reused = job("COMPLETED");
  reused.name = "bgtask-other";
  reused.submit_time = "2026-11-29T19:40:00";
  // sacct --duplicates: the newer job of the same id comes first or last.
  const std::vector<SlurmJobInfo> both{reused, ours};
  const auto* found = bgtask::accounted_job(both, "7", "bgtask-01hx2k3m4n5p", created);
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(found->exit_code, "9:0");
  EXPECT_EQ(bgtask::accounted_job({reused}, "7", "bgtask-01hx2k3m4n5p", created), nullptr);
  EXPECT_EQ(bgtask::accounted_job(both, "8", "bgtask-01hx2k3m4n5p", created), nullptr);

  auto placeholder = job("FAILED", "4:0");
  placeholder.name = "allocation";
  placeholder.submit_time = "2026-11-29T19:25:10"; // the same second as the task's creation
  // accounted_job points into the list it is given: a named one outlives the call.
  const std::vector<SlurmJobInfo> only_placeholder{placeholder};
  found = bgtask::accounted_job(only_placeholder, "7", "bgtask-01hx2k3m4n5p", created);
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(found->exit_code, "4:0");
  placeholder.submit_time = "2026-11-29T19:25:09"; // an older job of that id
  EXPECT_EQ(bgtask::accounted_job({placeholder}, "7", "bgtask-01hx2k3m4n5p", created), nullptr);
  placeholder.submit_time = "2026-11-29T19:30:00"; // a job that reused the id later
  EXPECT_EQ(bgtask::accounted_job({placeholder}, "7", "bgtask-01hx2k3m4n5p", created), nullptr);
  placeholder.submit_time = "Unknown";
  EXPECT_EQ(bgtask::accounted_job({placeholder}, "7", "bgtask-01hx2k3m4n5p", created), nullptr);
  placeholder.submit_time = "2026-11-29T19:30:00";
  const std::vector<SlurmJobInfo> named_and_placeholder{placeholder, ours};
  EXPECT_EQ(
    bgtask::accounted_job(named_and_placeholder, "7", "bgtask-01hx2k3m4n5p", created)->exit_code,
    "9:0"); // the name wins
}
