#include <bgtask/exec/slurm/slurm_round.hpp>

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

namespace bgtask {

namespace {

std::string task_count(std::size_t n)
{
  return std::to_string(n) + (n == 1 ? " Slurm task" : " Slurm tasks");
}

// The distinct job ids of `jobs`, in order.
std::vector<std::string> job_ids(const std::vector<SlurmWantedJob>& jobs)
{
  std::vector<std::string> ids;
  for (const auto& job : jobs) {
    if (std::find(ids.begin(), ids.end(), job.job_id) == ids.end()) {
      ids.push_back(job.job_id);
    }
  }
  return ids;
}

// What accounting (or its absence) says of a job neither it nor the
// controller holds any longer.
SlurmOutcome unknown_job_outcome(const SlurmWantedJob& wanted, const std::string& source)
{
  const auto grace = slurm_lost_grace();
  const bool element = wanted.job_id.find('_') != std::string::npos;
  const bool grace_over =
    grace.count() == 0 || (wanted.missing_since && now() - *wanted.missing_since >= grace);
  return vanished_job_outcome(
    "Slurm no longer knows job " + wanted.job_id + " and " +
      (source.empty() ? "no accounting is configured to ask" : source + " has no record of it") +
      (element ? " (Slurm keeps none for a pending array element cancelled outside bgtask)" : ""),
    grace_over);
}

// Looks jobs the controller does not know up in accounting, into `round`;
// false if no answer came.
bool ask_accounting(const std::vector<SlurmWantedJob>& jobs, TimePoint since,
                    std::optional<SlurmConfig> config, SlurmRoundResult& round)
{
  if (!config) {
    round.calls.push_back(std::chrono::steady_clock::now());
    auto answer = query_slurm_config();
    if (!answer) {
      round.warnings.emplace_back("controller", "the Slurm controller did not answer (" +
                                                  answer.error() + "); " + task_count(jobs.size()) +
                                                  " left as last recorded");
      return false;
    }
    config = std::move(answer).value();
    round.config = config;
  }
  std::vector<SlurmWantedJob> ours;
  for (const auto& wanted : jobs) {
    if (wanted.cluster && *wanted.cluster != config->cluster) {
      round.seen.emplace_back(wanted.task_id, std::nullopt); // another cluster's job
    } else {
      ours.push_back(wanted);
    }
  }
  if (ours.empty()) {
    return true;
  }
  round.calls.push_back(std::chrono::steady_clock::now());
  const auto accounting = query_accounting(*config, job_ids(ours), since);
  if (!accounting) {
    round.warnings.emplace_back("accounting", "Slurm accounting did not answer (" +
                                                accounting.error() + "); " +
                                                task_count(ours.size()) +
                                                " the controller no longer knows left as last "
                                                "recorded");
    return false;
  }
  for (const auto& wanted : ours) {
    const auto* found =
      accounted_job(accounting->jobs, wanted.job_id, wanted.job_name, wanted.created_at);
    if (found != nullptr) {
      round.seen.emplace_back(wanted.task_id, slurm_outcome(*found));
    } else if (wanted.job_id.find('_') != std::string::npos && wanted.cancel_requested) {
      // scancel of a pending element removes it without a trace.
      round.seen.emplace_back(wanted.task_id, cancelled_before_start_outcome());
    } else {
      round.seen.emplace_back(wanted.task_id, unknown_job_outcome(wanted, accounting->source));
    }
  }
  return true;
}

} // namespace

SlurmRoundResult run_slurm_round(const std::vector<SlurmWantedJob>& jobs, TimePoint since,
                                 std::optional<SlurmConfig> config)
{
  SlurmRoundResult round;
  round.calls.push_back(std::chrono::steady_clock::now());
  const auto answer = query_controller(job_ids(jobs));
  if (!answer) {
    round.warnings.emplace_back("controller", "the Slurm controller did not answer (" +
                                                answer.error() + "); " + task_count(jobs.size()) +
                                                " left as last recorded");
    return round;
  }
  std::vector<SlurmWantedJob> forgotten;
  for (const auto& wanted : jobs) {
    // Only a job of the task's name is the task's: the same id may name
    // another job (the controller lost its state, or the record comes from
    // another cluster).
    const auto found = std::find_if(answer->begin(), answer->end(), [&](const SlurmJobInfo& job) {
      return job.job_id == wanted.job_id && job.name == wanted.job_name;
    });
    if (found != answer->end()) {
      round.seen.emplace_back(wanted.task_id, slurm_outcome(*found));
    } else {
      forgotten.push_back(wanted);
    }
  }
  round.answered = forgotten.empty() || ask_accounting(forgotten, since, std::move(config), round);
  return round;
}

struct SlurmRoundThread::State
{
  std::mutex mutex;
  std::condition_variable over;
  bool done = false;
  SlurmRoundResult result;
  std::exception_ptr failure;
};

SlurmRoundThread::SlurmRoundThread(std::vector<SlurmWantedJob> jobs, TimePoint since,
                                   std::optional<SlurmConfig> config)
  : m_state(std::make_shared<State>())
{
  std::thread([state = m_state, jobs = std::move(jobs), since, config = std::move(config)] {
    SlurmRoundResult result;
    std::exception_ptr failure;
    try {
      result = run_slurm_round(jobs, since, config);
    } catch (...) {
      failure = std::current_exception();
    }
    const std::lock_guard<std::mutex> lock(state->mutex);
    state->result = std::move(result);
    state->failure = failure;
    state->done = true;
    state->over.notify_all();
  }).detach();
}

bool SlurmRoundThread::wait_for(Milliseconds limit)
{
  std::unique_lock<std::mutex> lock(m_state->mutex);
  return m_state->over.wait_for(lock, limit, [&] { return m_state->done; });
}

SlurmRoundResult SlurmRoundThread::take()
{
  const std::lock_guard<std::mutex> lock(m_state->mutex);
  if (m_state->failure) {
    std::rethrow_exception(m_state->failure);
  }
  return std::move(m_state->result);
}

} // namespace bgtask
