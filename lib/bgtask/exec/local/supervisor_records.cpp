#include <bgtask/exec/local/supervisor_records.hpp>
#include <bgtask/store/outcome_reserve.hpp>
#include <bgtask/store/record_transaction.hpp>
#include <bgtask/util/error.hpp>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <sys/wait.h>
#include <thread>

namespace bgtask {

namespace {

std::string signal_name(int sig)
{
  const char* abbrev = ::sigabbrev_np(sig);
  return abbrev != nullptr ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

} // namespace

bool save_final_record(const TaskDir& dir, TaskLock& lock, TaskRecord& fallback,
                       const std::function<void(TaskRecord&)>& change, int attempts)
{
  std::string failure;
  for (int attempt = 0; attempt < attempts; ++attempt) {
    try {
      const bool saved = update_own_record(dir, lock, fallback, change);
      drop_outcome_reserve(lock);
      return saved;
    } catch (const Error& e) {
      failure = e.what();
      release_outcome_space(lock);
      std::this_thread::sleep_for(std::chrono::milliseconds(50 << std::min(attempt, 5)));
    }
  }
  TaskRecord final_record = fallback;
  change(final_record);
  add_event(final_record, "record_write_failed", failure);
  write_outcome_note(lock, final_record);
  return false;
}

void update_running_record(const TaskDir& dir, TaskLock& lock, TaskRecord& record,
                           const std::function<void(TaskRecord&)>& change)
{
  try {
    if (update_own_record(dir, lock, record, change)) {
      return;
    }
  } catch (const Error&) {
  }
  change(record);
}

void end_pause(TaskRecord& record)
{
  if (record.pause.paused && record.pause.since) {
    // Never less: the wall clock may have been set back meanwhile.
    const auto paused = std::max(Milliseconds(0), now() - *record.pause.since);
    record.pause.paused_s += static_cast<double>(paused.count()) / 1000.0;
  }
  record.pause.paused = false;
  record.pause.requested = false;
  record.pause.since.reset();
}

void record_output_bound(OutputInfo& output, const OutputKeeper& keeper)
{
  output.dropped_bytes = keeper.dropped_bytes();
  output.truncated = output.dropped_bytes > 0;
  if (keeper.dropped_at() != UINT64_MAX) {
    output.dropped_at = keeper.dropped_at();
  }
}

void apply_outcome(TaskRecord& record, int status, Stopping stopping, const LaunchRequest& request)
{
  if (WIFEXITED(status)) {
    record.exit_code = WEXITSTATUS(status);
    record.signal.reset();
  } else if (WIFSIGNALED(status)) {
    record.exit_code.reset();
    record.signal = WTERMSIG(status);
  }
  if (stopping == Stopping::cancel) {
    finish_record(record, TaskState::cancelled, "cancelled on request");
  } else if (stopping == Stopping::timeout) {
    finish_record(record, TaskState::timed_out,
                  "timed out after " + format_duration(request.timeout.value_or(Milliseconds(0))));
  } else if (record.exit_code == 0) {
    finish_record(record, TaskState::succeeded, std::nullopt);
  } else if (record.exit_code) {
    finish_record(record, TaskState::failed,
                  "exited with status " + std::to_string(*record.exit_code));
  } else {
    finish_record(record, TaskState::failed, "killed by " + signal_name(record.signal.value_or(0)));
  }
}

void apply_cgroup_report(TaskRecord& r, const CgroupReport& report, bool oom)
{
  r.cgroup.reset();
  r.memory_peak = report.memory_peak;
  if (report.pids_limit_hits > 0) {
    add_event(r, "pids_limit",
              "a fork was refused " + std::to_string(report.pids_limit_hits) +
                " times at --pids-max " + std::to_string(r.options.limits.pids_max.value_or(0)));
  }
  if (oom && r.state == TaskState::failed) {
    r.reason = "oom";
    r.error =
      "killed by the memory limit (--memory-max " +
      std::to_string(r.options.limits.memory_max.value_or(0)) + " bytes" +
      (report.memory_peak ? "; peak " + std::to_string(*report.memory_peak) + " bytes" : "") + ")";
  }
}

} // namespace bgtask

namespace bgtask {

void save_started_record(const TaskDir& dir, TaskLock& lock, TaskRecord& record)
{
  // Under the update lock like every other write, so a concurrent cleanup
  // never takes the temp of this record for an abandoned one.
  if (!record.waiting_for) {
    create_record(dir, lock, record);
    return;
  }
  const auto update = update_record(
    dir, lock, record.id,
    [&](TaskRecord& current) {
      // What others wrote while it was queued stays; the rest is new.
      TaskRecord next = record;
      next.generation = current.generation;
      next.cancel_request = current.cancel_request;
      next.progress = current.progress;
      next.events = std::move(current.events);
      if (next.events.empty() || next.events.back().kind != "started") {
        add_event(next, "started");
      }
      next.waiting_for.reset();
      current = std::move(next);
      return Change::save;
    },
    &record);
  if (update.status != UpdateStatus::saved) {
    throw Error(ExitCode::failure, "the record of task " + record.id + " was removed");
  }
  record = update.record;
}

} // namespace bgtask
