#include <bgtask/exec/slurm/slurm_dependencies.hpp>
#include <bgtask/exec/slurm/slurm_executor.hpp>
#include <bgtask/exec/slurm/slurm_outcome_file.hpp>
#include <bgtask/exec/slurm/slurm_submission.hpp>
#include <bgtask/proc/caller_umask.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/record_transaction.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/store/task_files.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/terminal_escape.hpp>

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <iostream>
#include <sys/stat.h>
#include <unistd.h>

namespace bgtask {

namespace {

// How often a waiter looks for outcome files, at least.
constexpr Milliseconds k_outcome_poll{1000};
// How often a reconciliation waiting for the controller looks for outcome
// files meanwhile.
constexpr Milliseconds k_round_look{100};
// sbatch is only called once the controller has answered; killing it
// midway would leave a job bgtask may not know about, so it gets longer.
constexpr Milliseconds k_min_submit_timeout{30000};

std::uint64_t output_size(const TaskDir& dir, const std::string& id)
{
  struct stat st
  {
  };
  const auto name = output_file_name(id);
  if (::fstatat(dir.fd(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) {
    return 0;
  }
  return static_cast<std::uint64_t>(st.st_size);
}

// Writes `outcome` into the record if it changes it: re-read under the
// update lock, so a concurrent reconciler or a final record is respected.
TaskRecord write_outcome(const TaskDir& dir, const TaskRecord& record, const SlurmOutcome& outcome)
{
  TaskRecord probe = record;
  if (!apply_slurm_outcome(probe, outcome)) {
    return record;
  }
  auto update = update_record(dir, record.id, [&](TaskRecord& current) {
    if (!apply_slurm_outcome(current, outcome)) {
      return Change::keep;
    }
    if (is_final(current.state)) {
      current.output.bytes = output_size(dir, current.id);
    }
    return Change::save;
  });
  if (update.status == UpdateStatus::saved || update.status == UpdateStatus::kept) {
    return std::move(update.record);
  }
  return record; // removed or corrupt meanwhile: nothing written
}

// Creates a task's empty `ID.output`, which the job appends to.
void create_output_file(const TaskDir& dir, const std::string& id)
{
  const auto name = output_file_name(id);
  UniqueFd output(
    ::openat(dir.fd(), name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!output) {
    throw_system("cannot create " + dir.file_path(name), errno);
  }
}

// Writes each task's first record as `final_state`, with `error`.
void record_unsubmitted(const TaskDir& dir, std::vector<SlurmExecutor::NewTask>& tasks,
                        TaskState final_state, const std::string& error)
{
  for (auto& task : tasks) {
    finish_record(task.record, final_state, error);
    create_record(dir, task.lock, task.record);
  }
}

// Records how sbatch ended for `tasks` (one, or the elements of an array):
// their job, or why there is none. `job_name`: the name they were submitted under.
LaunchResult record_submission(const TaskDir& dir, std::vector<SlurmExecutor::NewTask>& tasks,
                               const ClientResult& result, const std::string& cluster,
                               const std::string& job_name)
{
  const auto job = result.end == ClientEnd::exited && result.exit_code == 0
                     ? parse_sbatch_output(result.out)
                     : std::nullopt;
  if (job) {
    try {
      for (auto& task : tasks) {
        auto& record = task.record;
        record.slurm = *job;
        record.slurm->cluster = job->cluster.value_or(cluster);
        record.slurm->job_name = job_name;
        if (task.array_index) {
          record.slurm->array_index = task.array_index;
          record.slurm->job_id += "_" + std::to_string(*task.array_index);
        }
        record.state = TaskState::queued;
        add_event(record, "submitted",
                  "Slurm job " + record.slurm->job_id + " on cluster " + *record.slurm->cluster);
        create_record(dir, task.lock, record);
      }
    } catch (const Error&) {
      cancel_slurm_job(job->job_id, job_name); // the whole array, if it is one
      throw;
    }
    return {};
  }
  LaunchResult launch_result;
  if (result.end == ClientEnd::timed_out) {
    launch_result.exit_code = static_cast<int>(ExitCode::lost);
    launch_result.error =
      result.error + "; a Slurm job named " + job_name + " may have been submitted";
    record_unsubmitted(dir, tasks, TaskState::lost, launch_result.error);
  } else {
    launch_result.exit_code = static_cast<int>(ExitCode::failure);
    launch_result.error = result.end == ClientEnd::exited && result.exit_code == 0
                            ? "sbatch printed no job id: " + client_message(result)
                            : "sbatch refused the job: " + client_message(result);
    record_unsubmitted(dir, tasks, TaskState::failed, launch_result.error);
  }
  return launch_result;
}

} // namespace

void SlurmExecutor::check(const StartOptions& options) const
{
  const auto& limits = options.limits;
  check_slurm_args(options.slurm.args, SlurmArgContext{!options.after.empty(), !options.env.empty(),
                                                       limits.memory_max.has_value()});
  if (!options.shell && !options.command.empty() && options.command.front().starts_with('-')) {
    throw_usage("a command name starting with '-' cannot be run by the slurm executor");
  }
  if ((options.max_output && *options.max_output) || options.queue || options.on_exit ||
      options.retry || limits.pids_max || limits.cpu_max || options.pty) {
    throw_usage("--max-output, --queue, --on-exit, --retry, --pids-max, --cpu-max and --pty need "
                "the local executor (--memory-max becomes sbatch --mem)");
  }
}

std::optional<std::string> SlurmExecutor::prepare(const TaskDir& dir, LaunchRequest& request,
                                                  SbatchJob& job, std::string& cluster)
{
  TaskRecord& record = request.record;
  const auto config_now = config();
  if (!config_now) {
    throw Error(ExitCode::failure, "the Slurm controller did not answer (" + config_now.error() +
                                     "); nothing was submitted");
  }
  cluster = config_now->cluster;
  record.executor = k_slurm_executor;
  record.owner.reset();
  record.child.reset();
  request.max_output.reset(); // $BGTASK_MAX_OUTPUT: a Slurm job's output is not capped
  record.options.max_output.reset();
  if (!record.after.empty()) {
    auto dependencies = load_slurm_dependencies(dir, record.after);
    reconcile(dir, dependencies);
    auto judged = judge_slurm_dependencies(dependencies, cluster);
    if (judged.failed) {
      return judged.failed;
    }
    job.after_jobs = std::move(judged.job_ids);
  }
  return std::nullopt;
}

LaunchResult SlurmExecutor::submit(const TaskDir& dir, std::vector<NewTask>& tasks,
                                   const LaunchRequest& request, const std::string& script,
                                   const SbatchJob& job, const std::string& cluster)
{
  for (const auto& task : tasks) {
    create_output_file(dir, task.record.id);
  }
  ClientCall call;
  call.argv = sbatch_arguments(
    request,
    job.array ? std::string("/dev/null") : dir.file_path(output_file_name(request.record.id)), job);
  call.input = script;
  call.env_additions = request.env_additions;
  call.timeout = std::max(slurm_client_timeout(), k_min_submit_timeout);
  return record_submission(dir, tasks, run_client(call), cluster, job.job_name);
}

// `lock` stays owned until the record is written, so cleanup leaves the
// task's first files alone meanwhile; nothing holds it afterwards.
LaunchResult SlurmExecutor::launch(const TaskDir& dir, TaskLock lock, LaunchRequest request)
{
  const std::string script = slurm_batch_script(request, dir.path(), caller_umask());
  std::string cluster;
  SbatchJob job{slurm_job_name(request.record.id, request.record.name), std::nullopt, {}};
  const auto failed = prepare(dir, request, job, cluster);
  std::vector<NewTask> tasks;
  tasks.push_back(NewTask{std::move(lock), request.record, std::nullopt});
  if (failed) {
    record_unsubmitted(dir, tasks, TaskState::failed, *failed);
    return {};
  }
  return submit(dir, tasks, request, script, job, cluster);
}

LaunchResult SlurmExecutor::launch_array(const TaskDir& dir, std::vector<ClaimedTask> elements,
                                         LaunchRequest request, const SlurmArraySpec& spec)
{
  if (elements.size() != spec.indices.size() || elements.empty()) {
    throw Error(ExitCode::failure, "internal error: an array task for each index expected");
  }
  std::vector<SlurmArrayElement> script_elements;
  for (std::size_t i = 0; i < elements.size(); ++i) {
    script_elements.push_back(SlurmArrayElement{spec.indices[i], elements[i].id,
                                                dir.file_path(output_file_name(elements[i].id))});
  }
  const std::string script =
    slurm_array_script(request, script_elements, dir.path(), caller_umask());
  std::string cluster;
  SbatchJob job{
    slurm_array_job_name(elements.front().id, request.record.name), slurm_array_argument(spec), {}};
  const auto failed = prepare(dir, request, job, cluster);
  std::vector<NewTask> tasks;
  for (std::size_t i = 0; i < elements.size(); ++i) {
    TaskRecord record = request.record;
    record.id = elements[i].id;
    record.output.path = script_elements[i].output_path;
    tasks.push_back(NewTask{std::move(elements[i].lock), std::move(record), spec.indices[i]});
  }
  if (failed) {
    record_unsubmitted(dir, tasks, TaskState::failed, *failed);
    return {};
  }
  return submit(dir, tasks, request, script, job, cluster);
}

void SlurmExecutor::reconcile(const TaskDir& dir, std::vector<TaskRecord>& records)
{
  const std::lock_guard<std::recursive_mutex> lock(m_mutex);
  std::vector<WantedJob> jobs;
  std::optional<TimePoint> since;
  bool urgent = false;
  for (auto& record : records) {
    if (is_final(record.state) || !record.slurm) {
      continue;
    }
    // The job's own word first: no controller call for a job that wrote it.
    const auto file = read_outcome_file(dir, record);
    if (file.verdict == OutcomeFileVerdict::ended) {
      record = write_outcome(dir, record, file.outcome);
      m_seen.erase(record.id);
      if (is_final(record.state)) {
        continue;
      }
    } else if (file.verdict == OutcomeFileVerdict::refused) {
      warn("outcome " + record.id, "refused " + dir.file_path(outcome_file_name(record.id)) + " (" +
                                     file.problem + "); asking Slurm how task " + record.id +
                                     " ended");
    }
    jobs.push_back(WantedJob{record.id, record.slurm->job_id, record.slurm->cluster,
                             recorded_job_name(record), record.created_at,
                             record.slurm->missing_since, record.cancel_request.has_value()});
    since = std::min(since.value_or(record.created_at), record.created_at);
    // Asked about soon: a job not asked about yet, and one that has ended
    // (its file says so) while Slurm, which alone knows how, may not have
    // caught up yet.
    urgent =
      urgent || m_seen.count(record.id) == 0 || file.verdict == OutcomeFileVerdict::signalled;
  }
  take_round(std::chrono::milliseconds(0));
  if (jobs.empty()) {
    return;
  }
  const auto at = Clock::now();
  if (!m_round && m_schedule.next_round(at, urgent) <= at) {
    m_round_tasks.clear();
    for (const auto& job : jobs) {
      m_round_tasks.insert(job.task_id);
    }
    m_round.emplace(std::move(jobs), *since, m_config);
  }
  await_round(dir, records);
  for (auto& record : records) {
    const auto seen = m_seen.find(record.id);
    if (!is_final(record.state) && record.slurm && seen != m_seen.end() && seen->second) {
      record = write_outcome(dir, record, explain_cancelled(dir, record, *seen->second));
    }
  }
}

SlurmOutcome SlurmExecutor::explain_cancelled(const TaskDir& dir, const TaskRecord& record,
                                              SlurmOutcome outcome)
{
  if (outcome.state != TaskState::cancelled || !outcome.node.empty() || record.after.empty() ||
      record.cancel_request) {
    return outcome;
  }
  std::vector<TaskRecord> dependencies;
  try {
    dependencies = load_slurm_dependencies(dir, record.after);
  } catch (const Error&) {
    return outcome; // a dependency removed meanwhile: nothing tells
  }
  reconcile(dir, dependencies);
  if (const auto failed = failed_dependency(dependencies, outcome.finished_at)) {
    outcome.state = TaskState::failed;
    outcome.signal.reset();
    outcome.reason = "not run: " + *failed + " (Slurm cancelled the job)";
  }
  return outcome;
}

void SlurmExecutor::await_round(const TaskDir& dir, std::vector<TaskRecord>& records)
{
  while (m_round && !take_round(k_round_look)) {
    bool ended = false;
    for (auto& record : records) {
      if (is_final(record.state) || !record.slurm || m_round_tasks.count(record.id) == 0) {
        continue;
      }
      const auto file = read_outcome_file(dir, record);
      if (file.verdict == OutcomeFileVerdict::ended) {
        record = write_outcome(dir, record, file.outcome);
        ended = ended || is_final(record.state);
      }
    }
    if (ended) {
      return; // the round goes on; a later reconciliation takes it in
    }
  }
}

bool SlurmExecutor::take_round(Milliseconds limit)
{
  if (!m_round || !m_round->wait_for(limit)) {
    return false;
  }
  auto round = m_round->take();
  m_round.reset();
  m_changed = false;
  for (const auto& call : round.calls) {
    m_schedule.note_call(call);
  }
  if (round.config) {
    m_config = std::move(round.config);
  }
  for (const auto& [kind, message] : round.warnings) {
    warn(kind, message);
  }
  for (auto& [task_id, outcome] : round.seen) {
    remember(task_id, std::move(outcome));
  }
  if (!round.answered) {
    for (const auto& task_id : m_round_tasks) {
      m_seen.try_emplace(task_id, std::nullopt);
    }
  }
  m_schedule.round_done(Clock::now(), m_changed);
  return true;
}

void SlurmExecutor::remember(const std::string& task_id, std::optional<SlurmOutcome> outcome)
{
  const auto previous = m_seen.find(task_id);
  const auto state_of = [](const std::optional<SlurmOutcome>& o) {
    return o ? std::optional(o->state) : std::nullopt;
  };
  if (previous == m_seen.end() || state_of(previous->second) != state_of(outcome)) {
    m_changed = true;
  }
  m_seen.insert_or_assign(task_id, std::move(outcome));
}

Result<SlurmConfig> SlurmExecutor::config()
{
  if (!m_config) {
    note_call();
    auto answer = query_slurm_config();
    if (!answer) {
      return answer;
    }
    m_config = std::move(answer).value();
  }
  return *m_config;
}

std::optional<std::string> SlurmExecutor::cancel(const TaskDir& dir, const TaskRecord& record,
                                                 Milliseconds grace, CancelAttempt attempt)
{
  const std::lock_guard<std::recursive_mutex> lock(m_mutex);
  if (!record.slurm || is_final(record.state) || attempt == CancelAttempt::overdue ||
      attempt == CancelAttempt::last) {
    return std::nullopt; // Slurm keeps its own time between TERM and KILL
  }
  const std::string& job_id = record.slurm->job_id;
  if (attempt == CancelAttempt::first) {
    const auto update = update_record(dir, record.id, [&](TaskRecord& current) {
      if (is_final(current.state)) {
        return Change::keep;
      }
      current.cancel_request = CancelRequest{now(), to_seconds(grace)};
      add_event(current, "cancel_requested", "scancel of Slurm job " + job_id);
      return Change::save;
    });
    if (update.status != UpdateStatus::saved) {
      return std::nullopt; // final, removed or corrupt meanwhile
    }
  }
  if (const auto problem = cancel_slurm_job(job_id, recorded_job_name(record))) {
    throw Error(ExitCode::failure,
                "cannot cancel Slurm job " + job_id + " of task " + record.id + ": " + *problem);
  }
  // Look again soon: the job ends within moments of scancel.
  m_seen.erase(record.id);
  m_schedule.hurry();
  return std::nullopt;
}

std::optional<Milliseconds> SlurmExecutor::recheck_interval() const
{
  const std::lock_guard<std::recursive_mutex> lock(m_mutex);
  const auto at = Clock::now();
  const auto left = std::chrono::ceil<Milliseconds>(m_schedule.next_round(at, false) - at);
  // Outcome files are looked for on every reconciliation: where inotify
  // cannot see them (a file written on another node of a network file
  // system), this stat per poll finds them.
  return std::clamp(left, Milliseconds(0), k_outcome_poll);
}

void SlurmExecutor::note_call()
{
  m_schedule.note_call(Clock::now());
}

void SlurmExecutor::warn(std::string_view kind, const std::string& message)
{
  if (m_warned.insert(std::string(kind)).second) {
    std::cerr << "bgtask: warning: " << escape_for_terminal(message, KeepNewlines::no) << '\n';
  }
}

} // namespace bgtask
