#pragma once

#include <bgtask/core/task_record.hpp>
#include <bgtask/exec/local/command_launch.hpp>
#include <bgtask/exec/local/output_keeper.hpp>
#include <bgtask/exec/local/retry_policy.hpp>
#include <bgtask/exec/local/stop_tree.hpp>
#include <bgtask/exec/local/supervisor_plan.hpp>
#include <bgtask/util/unique_fd.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>

namespace bgtask {

class TaskDir;

// Runs the command once, or (with --retry) until an attempt needs no retry
// (retry_policy.hpp): each attempt is forked, named in the record, released
// and watched (attempt_watch.hpp); between attempts the record says when the
// next one starts, and a cancel ends the wait. An attempt that cannot start
// ends the task (and the supervisor) here: the first one by reporting to
// `start`, a later one with a final record.
class AttemptRunner
{
public:
  // Sends `start` its answer ("CODE\nMESSAGE"); only the first one counts.
  using Report = std::function<void(const std::string&)>;

  // `capture`: the output bound, or null.
  AttemptRunner(const TaskDir& dir, SupervisorPlan& plan, int signal_fd, OutputKeeper* capture,
                Report report);

  // The wait status of the last attempt and why it was stopped.
  std::pair<int, Stopping> run();

  // True if the memory limit ended the last attempt.
  bool last_was_oom() const { return m_last && m_last->end == AttemptEnd::oom; }

  // Adds the last attempt to `record` (only when retries were asked for).
  void apply_last(TaskRecord& record) const;

private:
  [[noreturn]] void fail_before_running(const std::string& reason, int code);
  void record_start(pid_t child);
  [[noreturn]] void finish_exec_failure(const PendingCommand::Failure& failure);
  int run_one();
  Attempt finished_attempt(const AttemptResult& result) const;
  void record_attempt_and_schedule(const AttemptResult& result);
  bool wait_before_retry();

  const TaskDir& m_dir;
  SupervisorPlan& m_plan;
  int m_signal_fd;
  OutputKeeper* m_capture;
  Report m_report;
  int m_number = 1;
  Stopping m_stopping = Stopping::no;
  TimePoint m_started_at;
  std::optional<AttemptResult> m_last;
  std::chrono::steady_clock::time_point m_retry_at;
  std::uint64_t m_oom_kills_before = 0;
};

} // namespace bgtask
