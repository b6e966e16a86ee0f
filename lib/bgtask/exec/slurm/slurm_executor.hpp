#pragma once

#include <bgtask/exec/executor.hpp>
#include <bgtask/exec/slurm/slurm_array.hpp>
#include <bgtask/exec/slurm/slurm_call_schedule.hpp>
#include <bgtask/exec/slurm/slurm_client.hpp>
#include <bgtask/exec/slurm/slurm_outcome.hpp>
#include <bgtask/exec/slurm/slurm_round.hpp>
#include <bgtask/exec/slurm/slurm_submission.hpp>

#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <string_view>

namespace bgtask {

// Runs each task as a Slurm batch job (`start --executor slurm`). The record
// names the job (`slurm`: job id and cluster) and never a local process;
// the job itself writes `ID.output`, and `ID.outcome.json` when its command
// ends (slurm_job_wrapper.hpp), so the task directory must be on storage
// shared with the nodes. Reconcile takes a job's end from its outcome file
// first (slurm_outcome_file.hpp: only a file that passes its checks, and
// only an exit status no signal touched); the controller (then accounting,
// for jobs it has forgotten) is asked only about the jobs left, and is the
// source of truth for them. Records whose state changed are rewritten
// under the task's update lock.
//
// One instance per process (executor_for). It remembers what the
// controller said for a while, so that a waiter's repeated reconciliations
// share one answer, and asks again as SlurmCallSchedule allows: after a
// backoff (1 s doubling to 15 s, back to 1 s whenever a job changes
// state), within k_calls_per_minute Slurm client calls in any minute
// however many tasks it waits for, and never more than 15 s apart while it
// waits. It warns about an unreachable controller once per process.
class SlurmExecutor final : public Executor
{
public:
  // Refuses --slurm-arg values that would override what bgtask sets
  // (check_slurm_args), a command name starting with `-`, and what only a
  // local supervisor does: --max-output, --queue, --on-exit, --retry,
  // --pids-max and --cpu-max (--memory-max becomes sbatch --mem).
  void check(const StartOptions& options) const override;

  // Checks the controller answers (and learns its cluster name), creates
  // `ID.output`, submits the batch script with sbatch (slurm_submission.hpp)
  // and writes the record as `queued` with the job id. A rejected submission
  // is recorded as failed; one sbatch did not finish in time as lost (the job
  // may exist: its name is bgtask-ID).
  LaunchResult launch(const TaskDir& dir, TaskLock lock, LaunchRequest request) override;

  // `start --array`: submits one job array for `spec` and records one task
  // per element (`elements`, in the order of spec.indices), each a copy of
  // request.record with its own ID and output file and the job id
  // `ARRAYJOB_INDEX`. The job's script sends each element's output to its
  // task's `ID.output` (slurm_array_script). A rejected submission (or
  // a failed dependency) is recorded for every element, as launch does.
  LaunchResult launch_array(const TaskDir& dir, std::vector<ClaimedTask> elements,
                            LaunchRequest request, const SlurmArraySpec& spec);

  // A task whose first record is not written yet (launch, launch_array).
  struct NewTask
  {
    TaskLock lock;
    TaskRecord record;
    std::optional<std::uint32_t> array_index;
  };

  void reconcile(const TaskDir& dir, std::vector<TaskRecord>& records) override;

  // scancel (Slurm signals, then kills after its KillWait; `grace` does not
  // apply). The first attempt records the cancel request.
  std::optional<std::string> cancel(const TaskDir& dir, const TaskRecord& record,
                                    Milliseconds grace, CancelAttempt attempt) override;

  // The time left until the controller may be asked again.
  std::optional<Milliseconds> recheck_interval() const override;

  // The most controller and accounting calls (squeue, sacct, scontrol)
  // reconciliation makes in any 60 s.
  static constexpr std::size_t k_calls_per_minute = SlurmCallSchedule::k_calls_per_minute;

private:
  using Clock = std::chrono::steady_clock;

  // Checks the controller answers (learning its cluster, into `cluster`),
  // marks the record as a Slurm task and judges its --after dependencies
  // (job.after_jobs). Returns why the task must fail without being
  // submitted (a dependency did not succeed), if it must. Throws
  // Error(failure) if the controller does not answer.
  std::optional<std::string> prepare(const TaskDir& dir, LaunchRequest& request, SbatchJob& job,
                                     std::string& cluster);

  // Creates the tasks' output files, runs sbatch with `script` and records
  // the outcome for every task.
  LaunchResult submit(const TaskDir& dir, std::vector<NewTask>& tasks, const LaunchRequest& request,
                      const std::string& script, const SbatchJob& job, const std::string& cluster);

  using WantedJob = SlurmWantedJob;

  // Waits for the round in flight (m_round), if any, looking at the
  // outcome files of its tasks among `records` every k_round_look: returns
  // once the round is over and taken in, or once a file ended one of them
  // (which is written into its record; the round goes on, and a later
  // reconciliation takes it in).
  void await_round(const TaskDir& dir, std::vector<TaskRecord>& records);

  // Takes in what the round in flight learnt if it is over within `limit`
  // (m_seen, the budget, m_config, warnings); false if it is not.
  bool take_round(Milliseconds limit);

  void remember(const std::string& task_id, std::optional<SlurmOutcome> outcome);

  // `outcome` for `record`, but `failed` for a job Slurm cancelled before it
  // ran while the task waited --after others, one of which had failed by
  // then (failed_dependency, on the dependencies' reconciled records):
  // accounting does not keep Slurm's reason for that cancellation
  // (DependencyNeverSatisfied; sacct says `Dependency`), so once the
  // controller has forgotten the job the records tell.
  SlurmOutcome explain_cancelled(const TaskDir& dir, const TaskRecord& record,
                                 SlurmOutcome outcome);

  // Notes one client call, for the budget.
  void note_call();

  Result<SlurmConfig> config();

  // Prints `message` on stderr as a warning, once per process for each `kind`.
  void warn(std::string_view kind, const std::string& message);

  // What was last learnt about each task's job, by task id. No outcome:
  // nothing to change (an unknown state, another cluster's job, no answer).
  std::map<std::string, std::optional<SlurmOutcome>> m_seen;
  // The round of questions in flight, and the tasks it asks about.
  std::optional<SlurmRoundThread> m_round;
  std::set<std::string> m_round_tasks;
  SlurmCallSchedule m_schedule;
  bool m_changed = false; // an observation in the current round differed from the last
  std::optional<SlurmConfig> m_config;
  std::set<std::string> m_warned;
  // What the members above learnt is shared by the threads of `bgtask mcp`:
  // reconcile, cancel and recheck_interval hold this.
  mutable std::recursive_mutex m_mutex;
};

} // namespace bgtask
