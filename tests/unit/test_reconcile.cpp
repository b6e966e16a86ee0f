#include <bgtask/exec/executors.hpp>
#include <bgtask/exec/local/local_reconcile.hpp>
#include <bgtask/exec/verdict.hpp>
#include <bgtask/proc/process_info.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/store/task_files.hpp>
#include <bgtask/store/task_lock.hpp>
#include <bgtask/util/test_seams.hpp>

#include <gtest/gtest.h>

#include "temp_root.hpp"
#include <filesystem>
#include <fstream>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

using bgtask::judge_record;
using bgtask::Liveness;
using bgtask::TaskRecord;
using bgtask::TaskState;
using bgtask::Verdict;

namespace {

TaskRecord running_record()
{
  TaskRecord r;
  r.id = "01hx2k3m4n5p";
  r.command = {"sleep", "60"};
  r.cwd = "/";
  r.state = TaskState::running;
  r.created_at = bgtask::now();
  r.started_at = r.created_at;
  r.owner = bgtask::OwnerIdentity{4242, "00112233445566778899aabbccddeeff", 1000, "boot", "host"};
  r.child = bgtask::ChildIdentity{4243, 4243, 1001};
  return r;
}

Liveness observed(bool supervisor_alive, bool command_alive)
{
  Liveness liveness;
  liveness.supervisor_alive = supervisor_alive;
  liveness.command_alive = command_alive;
  return liveness;
}

const TaskState k_final_states[] = {TaskState::succeeded, TaskState::failed, TaskState::cancelled,
                                    TaskState::timed_out, TaskState::lost};

} // namespace

TEST(JudgeRecord, KeepsAFinalRecordWhateverIsObserved)
{
  for (const TaskState state : k_final_states) {
    TaskRecord record = running_record();
    record.state = state;
    for (const bool supervisor : {false, true}) {
      for (const bool command : {false, true}) {
        EXPECT_EQ(judge_record(record, observed(supervisor, command)), Verdict::keep)
          << to_string(state);
      }
    }
    Liveness elsewhere;
    elsewhere.same_host = false;
    elsewhere.same_boot = false;
    EXPECT_EQ(judge_record(record, elsewhere), Verdict::keep) << to_string(state);
  }
}

TEST(JudgeRecord, LeavesARecordOfAnotherHostAlone)
{
  for (const bool same_boot : {false, true}) {
    Liveness liveness;
    liveness.same_host = false;
    liveness.same_boot = same_boot;
    EXPECT_EQ(judge_record(running_record(), liveness), Verdict::foreign_host);
  }
}

TEST(JudgeRecord, FindsARecordOfAnEarlierBootLost)
{
  Liveness liveness;
  liveness.same_boot = false;
  EXPECT_EQ(judge_record(running_record(), liveness), Verdict::host_rebooted);
  // A pid that happens to look alive after a reboot proves nothing.
  liveness.supervisor_alive = true;
  liveness.command_alive = true;
  EXPECT_EQ(judge_record(running_record(), liveness), Verdict::host_rebooted);
}

TEST(JudgeRecord, KeepsARecordWhoseSupervisorIsAlive)
{
  EXPECT_EQ(judge_record(running_record(), observed(true, true)), Verdict::keep);
  EXPECT_EQ(judge_record(running_record(), observed(true, false)), Verdict::keep);
}

TEST(JudgeRecord, NeverJudgesByPidsOfAnotherPidNamespace)
{
  // The supervisor's lock is free, but the command's pids cannot be seen
  // from here: neither lost nor unsupervised.
  for (const bool command : {false, true}) {
    Liveness liveness = observed(false, command);
    liveness.pids_visible = false;
    EXPECT_EQ(judge_record(running_record(), liveness), Verdict::cannot_judge);
  }
  // A supervisor known alive by its lock is alive from anywhere.
  Liveness alive = observed(true, false);
  alive.pids_visible = false;
  EXPECT_EQ(judge_record(running_record(), alive), Verdict::keep);
  // cannot_judge changes nothing.
  TaskRecord record = running_record();
  const TaskRecord before = record;
  apply_verdict(record, Verdict::cannot_judge);
  EXPECT_EQ(record.state, before.state);
  EXPECT_EQ(record.unsupervised, before.unsupervised);
  EXPECT_EQ(record.events.size(), before.events.size());
}

TEST(JudgeRecord, MarksARunningCommandWithoutSupervisorUnsupervised)
{
  EXPECT_EQ(judge_record(running_record(), observed(false, true)), Verdict::unsupervised);
}

TEST(JudgeRecord, KeepsARecordAlreadyMarkedUnsupervised)
{
  TaskRecord record = running_record();
  record.unsupervised = true;
  EXPECT_EQ(judge_record(record, observed(false, true)), Verdict::keep);
}

TEST(JudgeRecord, EndsAPausedTaskWhoseSupervisorDied)
{
  TaskRecord record = running_record();
  record.pause.requested = true;
  record.pause.paused = true;
  record.pause.since = bgtask::now();
  EXPECT_EQ(judge_record(record, observed(true, true)), Verdict::keep);
  EXPECT_EQ(judge_record(record, observed(false, true)), Verdict::paused_orphan);
  record.unsupervised = true;
  EXPECT_EQ(judge_record(record, observed(false, true)), Verdict::paused_orphan);
  apply_verdict(record, Verdict::paused_orphan);
  EXPECT_EQ(record.state, TaskState::lost);
  EXPECT_NE(record.error.value_or("").find("paused"), std::string::npos);
}

TEST(JudgeRecord, FindsTheTaskLostWhenSupervisorAndCommandAreGone)
{
  EXPECT_EQ(judge_record(running_record(), observed(false, false)), Verdict::supervisor_died);
  TaskRecord record = running_record();
  record.unsupervised = true;
  EXPECT_EQ(judge_record(record, observed(false, false)), Verdict::supervisor_died);
}

TEST(JudgeRecord, JudgesAQueuedRecordLikeARunningOne)
{
  TaskRecord record = running_record();
  record.state = TaskState::queued;
  EXPECT_EQ(judge_record(record, observed(true, false)), Verdict::keep);
  EXPECT_EQ(judge_record(record, observed(false, false)), Verdict::supervisor_died);
}

// reconcile_record against real files: the owner recorded here never holds the lock.
class ReconcileRecord : public ::testing::Test
{
protected:
  void SetUp() override { m_dir.emplace(bgtask::TaskDir::open((m_root / "tasks").string())); }

  void TearDown() override { m_dir.reset(); }

  // A running record owned by a process of this boot and host that has
  // gone (its start time can never match), with a lock file nobody holds.
  TaskRecord orphaned_record()
  {
    TaskRecord r = running_record();
    r.owner->host = bgtask::current_host_name();
    r.owner->boot_id = bgtask::current_boot_id();
    r.owner->pid = static_cast<int>(::getpid());
    r.owner->start_time = 1;
    r.child->pid = 0x3ffffff;
    r.child->pgid = 0x3ffffff;
    auto lock = bgtask::TaskLock::create_owned(*m_dir, r.id);
    EXPECT_TRUE(lock.has_value());
    bgtask::save_record(*m_dir, r);
    return r;
  }

  TaskRecord reloaded(const std::string& id)
  {
    auto loaded = bgtask::load_record(*m_dir, id);
    EXPECT_EQ(loaded.status, bgtask::LoadStatus::ok) << loaded.reason;
    return loaded.record;
  }

  TempRoot m_root{"reconcile"};
  std::optional<bgtask::TaskDir> m_dir;
};

TEST_F(ReconcileRecord, RecordsATaskWhoseSupervisorDiedAsLost)
{
  const TaskRecord record = orphaned_record();
  const TaskRecord result = bgtask::reconcile_record(*m_dir, record);
  EXPECT_EQ(result.state, TaskState::lost);
  EXPECT_EQ(result.error, "supervisor died; exit status unknown");
  EXPECT_TRUE(result.finished_at.has_value());
  const TaskRecord saved = reloaded(record.id);
  EXPECT_EQ(saved.state, TaskState::lost);
  EXPECT_EQ(saved.error, "supervisor died; exit status unknown");
  EXPECT_GT(saved.generation, record.generation);
}

TEST_F(ReconcileRecord, RecordsATaskOfAnEarlierBootAsLost)
{
  TaskRecord record = orphaned_record();
  record.owner->boot_id = "00000000-0000-0000-0000-000000000000";
  bgtask::save_record(*m_dir, record);
  const TaskRecord result = bgtask::reconcile_record(*m_dir, record);
  EXPECT_EQ(result.state, TaskState::lost);
  EXPECT_EQ(result.error, "host rebooted");
  EXPECT_EQ(reloaded(record.id).state, TaskState::lost);
}

TEST_F(ReconcileRecord, LeavesATaskOfAnotherMachineUntouched)
{
  TaskRecord record = orphaned_record();
  record.owner->host = bgtask::current_host_name() + "-elsewhere";
  record.owner->boot_id = "00000000-0000-0000-0000-000000000000";
  bgtask::save_record(*m_dir, record);
  const auto generation = record.generation;
  const TaskRecord result = bgtask::reconcile_record(*m_dir, record);
  EXPECT_EQ(result.state, TaskState::running);
  EXPECT_EQ(reloaded(record.id).generation, generation);
}

TEST_F(ReconcileRecord, JudgesATaskOfThisBootWhateverTheHostIsCalledNow)
{
  TaskRecord record = orphaned_record();
  record.owner->host = bgtask::current_host_name() + "-before-rename";
  bgtask::save_record(*m_dir, record);
  const TaskRecord result = bgtask::reconcile_record(*m_dir, record);
  EXPECT_EQ(result.state, TaskState::lost);
  EXPECT_EQ(reloaded(record.id).state, TaskState::lost);
}

TEST_F(ReconcileRecord, KeepsATaskWhoseOwnerHoldsTheLock)
{
  TaskRecord record = running_record();
  record.owner->host = bgtask::current_host_name();
  record.owner->boot_id = bgtask::current_boot_id();
  auto owner = bgtask::TaskLock::create_owned(*m_dir, record.id);
  ASSERT_TRUE(owner.has_value());
  bgtask::save_record(*m_dir, record);
  const auto generation = record.generation;
  const TaskRecord result = bgtask::reconcile_record(*m_dir, record);
  EXPECT_EQ(result.state, TaskState::running);
  EXPECT_EQ(reloaded(record.id).generation, generation);
}

TEST_F(ReconcileRecord, NeverRewritesAFinalRecord)
{
  TaskRecord record = orphaned_record();
  record.state = TaskState::succeeded;
  record.exit_code = 0;
  bgtask::save_record(*m_dir, record);
  const auto generation = record.generation;
  const TaskRecord result = bgtask::reconcile_record(*m_dir, record);
  EXPECT_EQ(result.state, TaskState::succeeded);
  EXPECT_EQ(reloaded(record.id).generation, generation);
}

TEST_F(ReconcileRecord, ReReadsTheRecordBeforeRewritingIt)
{
  // The caller holds a stale running copy; the record on disk is already final.
  TaskRecord stale = orphaned_record();
  TaskRecord current = stale;
  current.state = TaskState::succeeded;
  current.exit_code = 0;
  bgtask::save_record(*m_dir, current);
  const TaskRecord result = bgtask::reconcile_record(*m_dir, stale);
  EXPECT_EQ(result.state, TaskState::succeeded);
  EXPECT_EQ(reloaded(stale.id).state, TaskState::succeeded);
  EXPECT_EQ(reloaded(stale.id).generation, current.generation);
}

TEST_F(ReconcileRecord, RecognisesThisHostWhenItsNameIsNotValidUtf8)
{
  // In a child with its own UTS namespace, so the host keeps its name.
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    constexpr std::string_view k_name = "bgtask-\xff\xfe-host";
    if (::unshare(CLONE_NEWUTS) != 0 || ::sethostname(k_name.data(), k_name.size()) != 0) {
      ::_exit(77);
    }
    const TaskRecord record = orphaned_record();
    const TaskRecord result = bgtask::reconcile_record(*m_dir, reloaded(record.id));
    ::_exit(result.state == TaskState::lost ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 77) {
    GTEST_SKIP() << "cannot create a UTS namespace";
  }
  EXPECT_EQ(WEXITSTATUS(status), 0) << "a task of this host was taken for one of another host";
}

TEST_F(ReconcileRecord, RecognisesThisBootWhenItsIdIsNotValidUtf8)
{
  if (!bgtask::test_seams_built()) {
    GTEST_SKIP() << "built without test seams (-DBGTASK_TEST_SEAMS=ON)";
  }
  const std::string boot_file = (m_root / "boot_id").string();
  std::ofstream(boot_file) << "\xff\xfe-boot\n";
  ::setenv("BGTASK_TEST_BOOT_ID_FILE", boot_file.c_str(), 1);
  const TaskRecord record = orphaned_record();
  const TaskRecord result = bgtask::reconcile_record(*m_dir, reloaded(record.id));
  ::unsetenv("BGTASK_TEST_BOOT_ID_FILE");
  EXPECT_EQ(result.state, TaskState::lost);
  EXPECT_EQ(result.error, "supervisor died; exit status unknown");
}
