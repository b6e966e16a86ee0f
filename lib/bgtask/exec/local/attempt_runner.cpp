#include <bgtask/exec/local/attempt_runner.hpp>
#include <bgtask/exec/local/attempt_watch.hpp>
#include <bgtask/exec/local/exit_hook.hpp>
#include <bgtask/exec/local/output_holders.hpp>
#include <bgtask/exec/local/queue_handoff.hpp>
#include <bgtask/exec/local/supervisor_records.hpp>
#include <bgtask/exec/local/task_processes.hpp>
#include <bgtask/proc/process_info.hpp>
#include <bgtask/store/parked_tasks.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/store/task_files.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/fd_io.hpp>
#include <bgtask/util/test_seams.hpp>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <poll.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

namespace bgtask {

namespace {

using SteadyClock = std::chrono::steady_clock;

AttemptResult attempt_result(int status, Stopping stopping)
{
  AttemptResult result;
  if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
  }
  result.end = stopping == Stopping::cancel    ? AttemptEnd::cancelled
               : stopping == Stopping::timeout ? AttemptEnd::timed_out
               : result.exit_code == 0         ? AttemptEnd::succeeded
                                               : AttemptEnd::failed;
  return result;
}

} // namespace

AttemptRunner::AttemptRunner(const TaskDir& dir, SupervisorPlan& plan, int signal_fd,
                             OutputKeeper* capture, Report report)
  : m_dir(dir),
    m_plan(plan),
    m_signal_fd(signal_fd),
    m_capture(capture),
    m_report(std::move(report))
{
}

std::pair<int, Stopping> AttemptRunner::run()
{
  const auto& policy = m_plan.request.record.options.retry;
  for (m_number = 1;; ++m_number) {
    const int status = run_one();
    AttemptResult result = attempt_result(status, m_stopping);
    if (result.end == AttemptEnd::failed && m_plan.cgroup &&
        m_plan.cgroup->oom_kills() > m_oom_kills_before) {
      result.end = AttemptEnd::oom; // the memory limit's OOM killer ended it
    }
    m_last = result;
    if (!should_retry(policy, m_number, result)) {
      return {status, m_stopping};
    }
    record_attempt_and_schedule(result);
    if (!wait_before_retry()) {
      return {status, Stopping::cancel};
    }
  }
}

void AttemptRunner::apply_last(TaskRecord& record) const
{
  record.retry_at.reset();
  end_pause(record);
  if (record.options.retry && m_last) {
    record.attempts.push_back(finished_attempt(*m_last));
  }
}

void AttemptRunner::fail_before_running(const std::string& reason, int code)
{
  if (m_plan.cgroup) {
    m_plan.cgroup->remove();
  }
  // No record yet: `start` fails with the reason. A queued task has one,
  // which is made final like any other.
  if (m_number == 1 && !m_plan.request.record.waiting_for) {
    m_report("1\n" + reason);
    ::_exit(1);
  }
  TaskRecord& record = m_plan.request.record;
  save_final_record(
    m_dir, m_plan.lock, record,
    [&](TaskRecord& r) {
      r.retry_at.reset();
      r.exit_code = code;
      finish_record(r, TaskState::failed, reason);
    },
    k_final_record_attempts);
  run_exit_hook(m_dir, m_plan.lock, record);
  ::_exit(0);
}

// Names the forked command in the record: the first record of the task,
// or the start of a further attempt.
void AttemptRunner::record_start(pid_t child)
{
  TaskRecord& record = m_plan.request.record;
  const ChildIdentity identity{child, child,
                               read_process_stat(child).value_or(ProcessStat{}).start_time};
  m_started_at = now();
  if (m_number > 1) {
    update_running_record(m_dir, m_plan.lock, record, [&](TaskRecord& r) {
      r.child = identity;
      r.retry_at.reset();
      end_pause(r);
      add_event(r, "attempt_started", "attempt " + std::to_string(m_number));
    });
    return;
  }
  if (!record.owner) {
    record.owner = this_supervisor_identity();
  }
  record.child = identity;
  record.state = TaskState::running;
  record.started_at = m_started_at;
  record.started_clock = monotonic_now();
  add_event(record, "started");
  try {
    save_started_record(m_dir, m_plan.lock, record);
  } catch (const Error& e) {
    ::kill(child, SIGKILL);
    if (m_plan.parked) {
      ::_exit(1); // still parked: its claims go with this process, a hand-off starts it again
    }
    remove_unrecorded_task_files(m_dir, record.id); // nothing of it behind
    m_report(std::string("1\n") + e.what());
    ::_exit(1);
  }
  if (m_plan.parked) {
    unpark_task(m_dir, record.id, record.queue);
    m_plan.parked.reset();
    kill_at_handoff_seam("after_record");
  }
}

// An exec that failed ends the task as failed (126 or 127), without retries.
void AttemptRunner::finish_exec_failure(const PendingCommand::Failure& failure)
{
  const int code = failure.exit_code;
  const auto& reason = failure.reason;
  TaskRecord& record = m_plan.request.record;
  if (m_plan.cgroup) {
    m_plan.cgroup->remove();
    record.cgroup.reset();
  }
  save_final_record(
    m_dir, m_plan.lock, record,
    [&](TaskRecord& r) {
      r.exit_code = code;
      finish_record(r, TaskState::failed, reason);
    },
    k_final_record_attempts);
  if (m_number == 1) {
    m_report(std::to_string(code) + "\n" + reason);
  }
  hand_off(m_dir, m_plan);
  run_exit_hook(m_dir, m_plan.lock, record);
  ::_exit(0);
}

int AttemptRunner::run_one()
{
  // argv and environment are built before the fork. The command opens its
  // own description of ID.output (output_holders.hpp).
  CommandImage image(m_plan.request, m_dir.path(), m_number, m_plan.output.get(),
                     m_plan.caller_umask);
  UniqueFd pty_slave;
  if (m_plan.pty) {
    // The command writes to its terminal; the supervisor copies from it.
    pty_slave = m_plan.pty->open_slave();
    if (!pty_slave) {
      fail_before_running(std::string("cannot open the pseudo-terminal: ") + std::strerror(errno),
                          1);
    }
    image.output_fd = pty_slave.get();
  } else {
    image.held_output_dir = m_dir.fd();
    image.held_output_name = output_file_name(m_plan.request.record.id);
  }
  image.start_notice_fd = m_plan.start_notice.get();
  image.error_fd = m_plan.caller_stderr.get();
  std::optional<PendingCommand> command;
  try {
    command.emplace(image);
  } catch (const Error& e) {
    fail_before_running(std::string("cannot start the command: ") + e.what(), 1);
  }
  m_plan.start_notice.close(); // the command's exec closes the last copy
  pty_slave.close();           // the master hangs up once the command's tree closed it
  if (m_plan.cgroup) {
    std::string error;
    if (!m_plan.cgroup->add_process(command->pid(), error)) {
      ::kill(command->pid(), SIGKILL);
      ::waitpid(command->pid(), nullptr, 0);
      fail_before_running("cannot move the command into its cgroup: " + error, 1);
    }
    m_oom_kills_before = m_plan.cgroup->oom_kills();
  }
  record_start(command->pid());
  if (m_number == 1) {
    // `start` prints the ID once the command has exec'd, which it hears
    // from the command itself (start_notice); the report stays open for
    // the reason of a failed exec. Written before the release, so that it
    // is there when `start` wakes at the exec.
    static_cast<void>(write_all(m_plan.report.get(), "0\n"));
  }
  command->release();
  // What the CLI left behind goes once the command has run a moment.
  AttemptWatch watch(
    m_dir, m_plan, command->pid(), m_signal_fd, m_capture,
    [output = m_plan.output.get(), pty = m_plan.pty ? &*m_plan.pty : nullptr] {
      return pty != nullptr ? pty->held() : output_held_elsewhere(output);
    },
    m_number == 1 ? AttemptWatch::TrimMemory::soon : AttemptWatch::TrimMemory::no);
  const int status = watch.run();
  if (const auto failure = command->exec_failure(m_plan.request)) {
    finish_exec_failure(*failure);
  }
  if (m_number == 1) {
    m_report(""); // the exec succeeded: nothing to add
  }
  m_stopping = watch.stopping();
  return status;
}

Attempt AttemptRunner::finished_attempt(const AttemptResult& result) const
{
  return Attempt{m_number,         m_started_at,  now(),
                 result.exit_code, result.signal, std::string(attempt_end_name(result.end))};
}

void AttemptRunner::record_attempt_and_schedule(const AttemptResult& result)
{
  const Milliseconds delay = from_seconds(m_plan.request.record.options.retry->delay_s);
  m_retry_at = SteadyClock::now() + delay;
  update_running_record(m_dir, m_plan.lock, m_plan.request.record, [&](TaskRecord& r) {
    r.attempts.push_back(finished_attempt(result));
    r.exit_code = result.exit_code;
    r.signal = result.signal;
    r.retry_at = now() + delay;
    add_event(r, "retry_scheduled",
              "attempt " + std::to_string(m_number) + " " + attempt_end_name(result.end));
  });
  m_last.reset();
}

// Sleeps until the next attempt is due; false if a cancel came first.
bool AttemptRunner::wait_before_retry()
{
  for (;;) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(m_retry_at - SteadyClock::now());
    if (left.count() <= 0) {
      return true;
    }
    // The output bound works on between attempts too (a process given the
    // output may still write), on its timer or its descriptor.
    const auto look = m_capture ? m_capture->next_look() : std::nullopt;
    const auto wait_ms =
      std::min<std::int64_t>({left.count(), 3600000, look.value_or(left).count()});
    pollfd fds[2] = {{m_signal_fd, POLLIN, 0}, {m_capture ? m_capture->fd() : -1, POLLIN, 0}};
    const int ready = ::poll(fds, 2, static_cast<int>(wait_ms));
    if (look || (ready > 0 && fds[1].revents != 0)) {
      m_capture->drain();
    }
    if (ready <= 0) {
      continue;
    }
    signalfd_siginfo info{};
    while (::read(m_signal_fd, &info, sizeof(info)) == sizeof(info)) {
      if (info.ssi_signo == SIGCHLD) {
        while (::waitpid(-1, nullptr, WNOHANG) > 0) {
        }
      } else if (info.ssi_signo != SIGUSR1) { // nothing runs to pause between attempts
        return false;
      }
    }
  }
}

} // namespace bgtask
