#include <bgtask/exec/slurm/slurm_outcome.hpp>
#include <bgtask/util/decimal_count.hpp>
#include <bgtask/util/duration.hpp>

#include <array>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <ctime>

namespace bgtask {

namespace {

template <std::size_t N>
bool one_of(std::string_view state, const std::array<std::string_view, N>& names)
{
  for (const auto name : names) {
    if (state == name) {
      return true;
    }
  }
  return false;
}

// How long after a task's creation its job's submission may be stamped
// (sbatch's own deadline is 30 s or more).
constexpr std::chrono::seconds k_placeholder_window{60};

constexpr std::array<std::string_view, 6> k_queued_states{
  "PENDING", "REQUEUED", "REQUEUE_HOLD", "REQUEUE_FED", "RESV_DEL_HOLD", "CONFIGURING"};
constexpr std::array<std::string_view, 7> k_running_states{
  "RUNNING", "COMPLETING", "SUSPENDED", "STOPPED", "SIGNALING", "STAGE_OUT", "RESIZING"};
constexpr std::array<std::string_view, 5> k_failure_states{"NODE_FAIL", "PREEMPTED", "BOOT_FAIL",
                                                           "DEADLINE", "SPECIAL_EXIT"};

// A non-negative decimal int; nullopt otherwise.
std::optional<int> parse_int(std::string_view text)
{
  const auto value = parse_decimal<int>(text);
  return value && *value >= 0 ? value : std::nullopt;
}

std::string signal_text(int sig)
{
  const char* abbrev = ::sigabbrev_np(sig);
  return abbrev != nullptr ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

// A time limit as the controller and sacct print it (`00:01:00`,
// `1-00:00:00`): the jobcomp log and `sacct -c` give whole minutes (`1`).
std::string time_limit_text(const std::string& limit)
{
  const auto minutes = parse_int(limit);
  if (!minutes) {
    return limit;
  }
  char text[32];
  const int days = *minutes / (24 * 60);
  const int hours = *minutes / 60 % 24;
  if (days > 0) {
    std::snprintf(text, sizeof(text), "%d-%02d:%02d:00", days, hours, *minutes % 60);
  } else {
    std::snprintf(text, sizeof(text), "%02d:%02d:00", hours, *minutes % 60);
  }
  return text;
}

// A node list that names a node: not empty, `(null)` or `None assigned`.
bool ran_somewhere(std::string_view nodes)
{
  return !nodes.empty() && nodes != "(null)" && !nodes.starts_with("None");
}

// Sets exit_code and signal from `code:signal`; true if either is non-zero.
bool take_exit_status(SlurmOutcome& outcome, std::string_view exit_code)
{
  const auto status = parse_slurm_exit_code(exit_code);
  if (!status) {
    return false;
  }
  if (status->second != 0) {
    outcome.signal = status->second;
  } else if (status->first != 0) {
    outcome.exit_code = status->first;
  }
  return status->first != 0 || status->second != 0;
}

// For a job Slurm stopped (cancelled, time limit): the signal the
// controller reports, else SIGTERM (what Slurm sends first), whatever exit
// status the source shows (accounting says 0:0; the controller 0:15, or
// 143:0 from a shell that died of it); nothing for a job that never ran.
void take_stop_signal(SlurmOutcome& outcome, std::string_view exit_code)
{
  if (outcome.node.empty()) {
    return;
  }
  const auto status = parse_slurm_exit_code(exit_code);
  outcome.signal = status && status->second != 0 ? status->second : SIGTERM;
}

void set_duration(TaskRecord& record)
{
  if (record.started_at && record.finished_at && *record.finished_at >= *record.started_at) {
    record.duration_s =
      static_cast<double>((*record.finished_at - *record.started_at).count()) / 1000.0;
  }
}

// The pending reason as a record keeps it; true if it changed.
bool take_pending_reason(TaskRecord& record, const SlurmOutcome& outcome)
{
  if (!record.slurm) {
    return false;
  }
  auto reason = outcome.state == TaskState::queued && !outcome.pending_reason.empty()
                  ? std::optional(outcome.pending_reason)
                  : std::nullopt;
  if (record.slurm->pending_reason == reason) {
    return false;
  }
  record.slurm->pending_reason = std::move(reason);
  return true;
}

// Applies a queued or running outcome; true if the record changed.
bool apply_unfinished(TaskRecord& record, const SlurmOutcome& outcome, const std::string& job)
{
  const bool reason_changed = take_pending_reason(record, outcome);
  if (record.state == outcome.state) {
    if (reason_changed && record.slurm->pending_reason) {
      add_event(record, "pending", job + ": " + *record.slurm->pending_reason);
    }
    return reason_changed;
  }
  record.state = outcome.state;
  if (outcome.state == TaskState::running) {
    record.started_at = outcome.started_at.value_or(now());
    add_event(record, "started", job + (outcome.node.empty() ? "" : " on " + outcome.node));
  } else {
    add_event(record, "requeued",
              job + " is pending again" +
                (outcome.pending_reason.empty() ? "" : " (" + outcome.pending_reason + ")"));
  }
  return true;
}

} // namespace

std::optional<TimePoint> parse_slurm_time(std::string_view text)
{
  if (text.size() != 19) {
    return std::nullopt;
  }
  const std::string copy(text);
  std::tm tm{};
  const char* end = ::strptime(copy.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
  if (end == nullptr || *end != '\0') {
    return std::nullopt;
  }
  tm.tm_isdst = -1;
  const std::time_t seconds = std::mktime(&tm);
  if (seconds == static_cast<std::time_t>(-1)) {
    return std::nullopt;
  }
  return std::chrono::time_point_cast<std::chrono::milliseconds>(
    std::chrono::system_clock::from_time_t(seconds));
}

std::optional<std::pair<int, int>> parse_slurm_exit_code(std::string_view text)
{
  const auto colon = text.find(':');
  if (colon == std::string_view::npos) {
    return std::nullopt;
  }
  const auto code = parse_int(text.substr(0, colon));
  const auto sig = parse_int(text.substr(colon + 1));
  if (!code || !sig) {
    return std::nullopt;
  }
  return std::pair(*code, *sig);
}

std::optional<SlurmOutcome> slurm_outcome(const SlurmJobInfo& job)
{
  SlurmOutcome outcome;
  const std::string_view state = job.state;
  if (ran_somewhere(job.node_list)) {
    outcome.node = job.node_list;
    outcome.started_at = parse_slurm_time(job.start_time);
  }
  if (one_of(state, k_queued_states)) {
    outcome.state = TaskState::queued;
    outcome.started_at.reset();
    outcome.node.clear();
    if (job.reason != "None" && job.reason != "(null)") {
      outcome.pending_reason = job.reason;
    }
    return outcome;
  }
  if (one_of(state, k_running_states)) {
    outcome.state = TaskState::running;
    return outcome;
  }
  outcome.finished_at = parse_slurm_time(job.end_time);
  if (state == "COMPLETED") {
    outcome.state = TaskState::succeeded;
    outcome.exit_code = 0;
  } else if (state == "FAILED") {
    outcome.state = TaskState::failed;
    take_exit_status(outcome, job.exit_code);
    if (outcome.signal) {
      outcome.reason = "killed by " + signal_text(*outcome.signal);
    } else if (outcome.exit_code) {
      outcome.reason = "exited with status " + std::to_string(*outcome.exit_code);
    } else {
      outcome.reason = "Slurm state FAILED";
      if (!job.reason.empty() && job.reason != "None") {
        outcome.reason += " (" + job.reason + ")";
      }
    }
  } else if (state == "CANCELLED" && job.reason == "DependencyNeverSatisfied") {
    outcome.state = TaskState::failed;
    outcome.reason = "not run: a dependency did not succeed (Slurm: DependencyNeverSatisfied)";
  } else if (state == "CANCELLED") {
    outcome.state = TaskState::cancelled;
    take_stop_signal(outcome, job.exit_code);
    outcome.reason = "cancelled in Slurm";
  } else if (state == "TIMEOUT") {
    outcome.state = TaskState::timed_out;
    take_stop_signal(outcome, job.exit_code);
    outcome.reason = "Slurm time limit reached";
    if (!job.time_limit.empty()) {
      outcome.reason += " (TimeLimit=" + time_limit_text(job.time_limit) + ")";
    }
  } else if (state == "OUT_OF_MEMORY") {
    // ExitCode says 0:125, which is no signal: the kernel's OOM killer sends SIGKILL.
    outcome.state = TaskState::failed;
    outcome.signal = SIGKILL;
    outcome.end_reason = "oom";
    outcome.reason =
      "out of memory: the job went over its memory limit (Slurm state OUT_OF_MEMORY)";
  } else if (one_of(state, k_failure_states)) {
    outcome.state = TaskState::failed;
    take_exit_status(outcome, job.exit_code);
    outcome.reason = "Slurm state " + job.state;
    if (state == "NODE_FAIL" && !outcome.node.empty()) {
      outcome.reason += ": a node of the job (" + outcome.node + ") failed while it ran";
    }
  } else {
    return std::nullopt;
  }
  return outcome;
}

const SlurmJobInfo* accounted_job(const std::vector<SlurmJobInfo>& jobs, const std::string& job_id,
                                  const std::string& name, TimePoint created_at)
{
  const SlurmJobInfo* placeholder = nullptr;
  const auto created_second = std::chrono::floor<std::chrono::seconds>(created_at);
  for (const auto& job : jobs) {
    if (job.job_id != job_id) {
      continue;
    }
    if (job.name == name) {
      return &job;
    }
    const auto submitted = parse_slurm_time(job.submit_time);
    // bgtask submits a task's job right after creating it: a placeholder
    // submitted much later is another job that reused the id.
    if (job.name == k_slurm_placeholder_name && submitted && *submitted >= created_second &&
        *submitted <= created_at + k_placeholder_window) {
      placeholder = &job;
    }
  }
  return placeholder;
}

SlurmOutcome vanished_job_outcome(std::string reason, bool grace_over)
{
  SlurmOutcome outcome;
  outcome.state = TaskState::lost;
  outcome.missing = !grace_over;
  outcome.reason = std::move(reason);
  return outcome;
}

SlurmOutcome cancelled_before_start_outcome()
{
  SlurmOutcome outcome;
  outcome.state = TaskState::cancelled;
  outcome.reason = "cancelled in Slurm before it started";
  return outcome;
}

bool apply_slurm_outcome(TaskRecord& record, const SlurmOutcome& outcome)
{
  if (is_final(record.state)) {
    return false;
  }
  const std::string job = record.slurm ? "Slurm job " + record.slurm->job_id : "Slurm job";
  if (outcome.missing) {
    if (!record.slurm || record.slurm->missing_since) {
      return false;
    }
    record.slurm->missing_since = now();
    add_event(record, "missing", outcome.reason + "; lost if it stays so");
    return true;
  }
  const bool found_again = record.slurm && record.slurm->missing_since;
  if (found_again) {
    record.slurm->missing_since.reset();
  }
  if (!is_final(outcome.state)) {
    return apply_unfinished(record, outcome, job) || found_again;
  }
  if (!record.started_at && outcome.started_at) {
    record.started_at = outcome.started_at;
  }
  record.exit_code = outcome.exit_code;
  record.signal = outcome.signal;
  record.reason = outcome.end_reason;
  std::string reason = outcome.reason;
  if (outcome.state == TaskState::cancelled && record.cancel_request) {
    reason = "cancelled on request";
  } else if (outcome.state == TaskState::timed_out && record.timeout_s) {
    reason += ", from --timeout " + format_duration(from_seconds(*record.timeout_s)) +
              " rounded up to whole minutes";
  }
  if (record.slurm) {
    record.slurm->pending_reason.reset();
  }
  finish_record(record, outcome.state,
                outcome.state == TaskState::succeeded ? std::nullopt : std::optional(reason));
  if (outcome.finished_at) {
    record.finished_at = outcome.finished_at;
  }
  set_duration(record);
  return true;
}

} // namespace bgtask
