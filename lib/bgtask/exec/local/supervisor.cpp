// The supervisor: one process per task, forked by `start`.
//
// Its life in phases: detach from the CLI; prepare (room for the final
// record, the task's cgroup, the wait for a turn, the output bound); launch
// each attempt (fork the command, argv and environment built first, which
// blocks on a "go" pipe; write the running record naming both processes;
// release the command; learn from a CLOEXEC pipe whether exec succeeded;
// report to `start`); supervise; finish (final record, exit hook). A
// supervisor killed before "go" leaves a command that exits 127 without
// running anything, and a record (if any) that reconciles to `lost`. It is
// the CLI's image after a fork: nothing may unwind out of it, so the phases
// run under one last-resort catch that records the reason and exits.

#include <bgtask/exec/local/command_launch.hpp>
#include <bgtask/exec/local/exit_hook.hpp>
#include <bgtask/exec/local/output_capture.hpp>
#include <bgtask/exec/local/output_holders.hpp>
#include <bgtask/exec/local/output_trimmer.hpp>
#include <bgtask/exec/local/queue_wait.hpp>
#include <bgtask/exec/local/removal_watch.hpp>
#include <bgtask/exec/local/retry_policy.hpp>
#include <bgtask/exec/local/supervisor.hpp>
#include <bgtask/exec/local/task_processes.hpp>
#include <bgtask/proc/child_exec.hpp>
#include <bgtask/proc/memory_trim.hpp>
#include <bgtask/proc/process_info.hpp>
#include <bgtask/proc/process_tree.hpp>
#include <bgtask/store/outcome_reserve.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/record_transaction.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/store/task_files.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/test_seams.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <functional>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace bgtask {

namespace {

using SteadyClock = std::chrono::steady_clock;

// How often a running supervisor looks at its record for a cancel request
// that came without a signal (from a `cancel` in another pid namespace,
// which cannot see it): one fstatat while the record is unchanged.
constexpr Milliseconds k_record_check{2000};

void write_fully(int fd, std::string_view data)
{
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return;
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
}

void redirect_stdio_to_null()
{
  const int null_fd = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null_fd >= 0) {
    ::dup2(null_fd, 0);
    ::dup2(null_fd, 1);
    ::dup2(null_fd, 2);
    if (null_fd > 2) {
      ::close(null_fd);
    }
  }
}

std::string signal_name(int sig)
{
  const char* abbrev = ::sigabbrev_np(sig);
  return abbrev != nullptr ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

// Writes a final record in one record transaction (record_transaction.hpp):
// re-read under the update lock, `change` applied, saved; a corrupt record
// is replaced, a removed task is left removed. After a failure it gives the
// space reserved in the lock file back (so a full disk has room for the
// retry) and retries with backoff; if every attempt fails it leaves the
// final record as a note in the lock file, where reconciliation finds it.
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

// Writes an intermediate record (a new attempt, a pending retry) in one
// record transaction. Best effort: on failure the supervisor goes on, and
// the final record is written as usual.
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

// fdatasync(2), retried on EINTR; 0 or errno.
int sync_data(int fd)
{
  while (::fdatasync(fd) != 0) {
    if (errno != EINTR) {
      return errno;
    }
  }
  return 0;
}

enum class Stopping { no, cancel, timeout };

// Marks the pause of a record as over, adding its time to `paused_s`.
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

// What `keeper` dropped, into the record's output section.
void record_output_bound(OutputInfo& output, const OutputKeeper& keeper)
{
  output.dropped_bytes = keeper.dropped_bytes();
  output.truncated = output.dropped_bytes > 0;
  if (keeper.dropped_at() != UINT64_MAX) {
    output.dropped_at = keeper.dropped_at();
  }
}

class Supervision
{
public:
  // `output_held` tells whether a process still holds the command's output
  // (output_holders.hpp). With TrimMemory::first_wait, it gives back what
  // the CLI left behind (memory_trim) right before it first sleeps: what
  // runs after the trim faults its code back in, so as little as possible
  // runs in between.
  enum class TrimMemory { no, first_wait };
  Supervision(const TaskDir& dir, SupervisorPlan& plan, pid_t child, int signal_fd,
              OutputKeeper* capture, std::function<bool()> output_held, TrimMemory trim)
    : m_dir(dir),
      m_plan(plan),
      m_child(child),
      m_signal_fd(signal_fd),
      m_capture(capture),
      m_removal(dir, plan.request.record.id),
      m_output_held(std::move(output_held)),
      m_trim(trim)
  {
  }

  // Runs until the command has exited and no process holds its output any
  // more; returns the command's wait status. The timeout's clock stands
  // still while the task is paused.
  int run()
  {
    if (m_plan.request.timeout) {
      m_timeout_at = SteadyClock::now() + *m_plan.request.timeout;
    }
    std::optional<int> status;
    Milliseconds hold_recheck{10};
    for (;;) {
      const auto now = SteadyClock::now();
      const bool timing = m_stopping == Stopping::no && !m_paused;
      if (timing && m_timeout_at && now >= *m_timeout_at) {
        begin_stop(Stopping::timeout, m_plan.request.grace);
      }
      if (m_kill_at && now >= *m_kill_at) {
        signal_tree(SIGKILL);
        m_kill_at.reset();
        m_killed = true;
      }
      if (m_stopping == Stopping::no && now >= m_record_check_at) {
        m_record_check_at = now + k_record_check;
        if (cancel_requested_in_record()) {
          begin_stop(Stopping::cancel, requested_grace());
        }
      }
      stop_if_removed(now);
      if (status && !still_held()) {
        break;
      }
      auto next = m_kill_at
                    ? m_kill_at
                    : (m_stopping == Stopping::no && !m_paused ? m_timeout_at : std::nullopt);
      if (m_stopping == Stopping::no) {
        next =
          std::min({next.value_or(m_record_check_at), m_record_check_at, m_removal.next_look()});
      }
      if (status) {
        // Holders of the output that are not our children: no event tells
        // when they close it, so look again, less and less often.
        next = std::min(next.value_or(SteadyClock::time_point::max()), now + hold_recheck);
        hold_recheck = std::min(hold_recheck * 2, Milliseconds(500));
      }
      if (auto exited = wait_for_events(next)) {
        status = exited;
        m_reaped = true;
      }
    }
    if (m_capture) {
      m_capture->finish(); // what the command wrote before it exited
    }
    if (m_stopping != Stopping::no) {
      kill_remaining_descendants();
    }
    return *status;
  }

  Stopping stopping() const { return m_stopping; }

private:
  // After the command's exit: whether processes still hold its output and
  // so still belong to the task. Not once the tree was KILLed: what is left
  // of it then is killed until none is left (kill_remaining_descendants),
  // and a holder elsewhere (given the descriptor) cannot be stopped by us.
  bool still_held() { return !m_killed && m_output_held && m_output_held(); }

  // One poll for signals and output work until `next`; the command's wait
  // status once it has exited.
  std::optional<int> wait_for_events(std::optional<SteadyClock::time_point> next)
  {
    const auto now = SteadyClock::now();
    const bool resting = now < m_capture_resume;
    if (resting && (!next || m_capture_resume < *next)) {
      next = m_capture_resume;
    }
    int wait_ms = -1;
    if (next) {
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(*next - now);
      wait_ms = static_cast<int>(std::clamp<std::int64_t>(left.count(), 0, 3600000));
    }
    const int capture_fd = m_capture && !resting ? m_capture->fd() : -1;
    pollfd fds[2] = {{m_signal_fd, POLLIN, 0}, {capture_fd, POLLIN, 0}};
    if (m_trim == TrimMemory::first_wait) {
      m_trim = TrimMemory::no;
      m_plan.retired_watch.close(); // the command runs: its wait for a turn is over
      release_unused_memory();
    }
    if (::poll(fds, 2, wait_ms) <= 0) {
      return std::nullopt;
    }
    if (fds[1].revents != 0) {
      m_capture->drain();
      m_capture_resume = SteadyClock::now() + m_capture->rest();
    }
    return fds[0].revents != 0 ? handle_signals() : std::nullopt;
  }

  std::optional<int> handle_signals()
  {
    signalfd_siginfo info{};
    std::optional<int> child_status;
    while (::read(m_signal_fd, &info, sizeof(info)) == sizeof(info)) {
      if (info.ssi_signo == SIGCHLD) {
        int status = 0;
        pid_t pid = 0;
        while ((pid = ::waitpid(-1, &status, WNOHANG)) > 0) {
          if (pid == m_child) {
            child_status = status;
          }
        }
      } else if (info.ssi_signo == SIGUSR1) {
        if (m_stopping == Stopping::no) {
          follow_pause_request();
        }
      } else if (m_stopping == Stopping::no) {
        begin_stop(Stopping::cancel, requested_grace());
      }
    }
    return child_status;
  }

  // A task whose directory or record was deleted under it can no longer be
  // seen, waited for or cancelled: stop it as a cancel would (no retry
  // follows), and the final record, with nowhere to go, is not written.
  void stop_if_removed(SteadyClock::time_point now)
  {
    if (m_stopping == Stopping::no && m_removal.removed(now)) {
      begin_stop(Stopping::cancel, m_plan.request.grace);
    }
  }

  // True if the record, changed since the last look, holds a cancel
  // request: `cancel` writes it before it signals, and a `cancel` that
  // cannot signal (another pid namespace) relies on this.
  bool cancel_requested_in_record()
  {
    struct stat st
    {
    };
    const auto name = status_file_name(m_plan.request.record.id);
    if (::fstatat(m_dir.fd(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 ||
        (st.st_ino == m_record_seen.st_ino && st.st_mtim.tv_sec == m_record_seen.st_mtim.tv_sec &&
         st.st_mtim.tv_nsec == m_record_seen.st_mtim.tv_nsec)) {
      return false;
    }
    m_record_seen = st;
    const auto loaded = load_record(m_dir, m_plan.request.record.id);
    return loaded.status == LoadStatus::ok && loaded.record.cancel_request.has_value();
  }

  Milliseconds requested_grace()
  {
    const auto loaded = load_record(m_dir, m_plan.request.record.id);
    if (loaded.status == LoadStatus::ok && loaded.record.cancel_request) {
      const double seconds = std::clamp(loaded.record.cancel_request->grace_s, 0.0, 86400.0 * 365);
      return Milliseconds(static_cast<std::int64_t>(seconds * 1000));
    }
    return m_plan.request.grace;
  }

  void begin_stop(Stopping why, Milliseconds grace)
  {
    m_stopping = why;
    signal_tree(SIGTERM);
    if (m_paused) {
      freeze_tree(false); // a stopped process acts on TERM only once continued
      m_paused = false;
    }
    m_kill_at = SteadyClock::now() + grace;
  }

  // `pause` or `resume` changed the record's pause request: stop or continue
  // the whole tree, move the timeout by the time spent paused, and record
  // the new state (the command waits for it).
  void follow_pause_request()
  {
    const auto loaded = load_record(m_dir, m_plan.request.record.id);
    if (loaded.status != LoadStatus::ok) {
      return;
    }
    const bool want = loaded.record.pause.requested;
    if (want && !m_paused) {
      freeze_tree(true);
      m_paused = true;
      m_paused_at = SteadyClock::now();
    } else if (!want && m_paused) {
      freeze_tree(false);
      m_paused = false;
      if (m_timeout_at) {
        *m_timeout_at += SteadyClock::now() - m_paused_at;
      }
    }
    update_running_record(m_dir, m_plan.lock, m_plan.request.record, [&](TaskRecord& r) {
      if (m_paused && !r.pause.paused) {
        r.pause.paused = true;
        r.pause.since = now();
        add_event(r, "paused");
      } else if (!m_paused && r.pause.paused) {
        end_pause(r);
        add_event(r, "resumed");
      }
      r.pause.requested = m_paused;
    });
  }

  // The command's group (until its leader is reaped: then the pgid may be
  // another's), every descendant but other tasks' supervisors and their
  // trees (task_processes.hpp) and, with a cgroup, every process in it.
  void signal_tree(int sig)
  {
    auto pids = supervised_processes(::getpid(), m_plan.request.record.id);
    if (m_plan.cgroup) {
      for (const int pid : m_plan.cgroup->processes()) {
        if (std::find(pids.begin(), pids.end(), pid) == pids.end()) {
          pids.push_back(pid);
        }
      }
    }
    signal_processes(m_reaped ? 0 : m_child, pids, sig);
  }

  // Stops (or continues) the tree: through the freezer where the task has
  // one, else with SIGSTOP (twice: a process forking during the first round
  // has a child that escaped it) or SIGCONT.
  void freeze_tree(bool frozen)
  {
    if (frozen) {
      m_frozen_by_cgroup = m_plan.cgroup && m_plan.cgroup->set_frozen(true);
      if (!m_frozen_by_cgroup) {
        signal_tree(SIGSTOP);
        signal_tree(SIGSTOP);
      }
    } else if (m_frozen_by_cgroup) {
      m_plan.cgroup->set_frozen(false);
    } else {
      signal_tree(SIGCONT);
    }
  }

  // After the command's leader is reaped: KILLs descendants until none is
  // left, since a process forking between one scan and its kill has a child
  // that escapes that round (orphans come back to us, the subreaper). Not
  // the group: with the leader reaped, its pid may already be another's.
  void kill_remaining_descendants()
  {
    for (int round = 0; round < 500; ++round) {
      const auto descendants = supervised_processes(::getpid(), m_plan.request.record.id);
      if (descendants.empty()) {
        return;
      }
      signal_processes(0, descendants, SIGKILL);
      while (::waitpid(-1, nullptr, WNOHANG) > 0) {
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }

  const TaskDir& m_dir;
  SupervisorPlan& m_plan;
  pid_t m_child;
  int m_signal_fd;
  OutputKeeper* m_capture; // null when the output is not bounded
  RemovalWatch m_removal;
  std::function<bool()> m_output_held;
  SteadyClock::time_point m_capture_resume{};
  SteadyClock::time_point m_record_check_at = SteadyClock::now() + k_record_check;
  struct stat m_record_seen
  {
  };
  bool m_reaped = false; // the command's leader
  bool m_killed = false; // KILL was sent to the tree
  Stopping m_stopping = Stopping::no;
  std::optional<SteadyClock::time_point> m_kill_at;
  std::optional<SteadyClock::time_point> m_timeout_at;
  bool m_paused = false;
  bool m_frozen_by_cgroup = false;
  SteadyClock::time_point m_paused_at;
  TrimMemory m_trim;
};

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

// Runs the command once, or (with --retry) until an attempt needs no retry:
// each attempt is forked, named in the record and released; between
// attempts the record says when the next one starts, and a cancel ends
// the wait.
class Attempts
{
public:
  using Report = std::function<void(const std::string&)>;

  // `pipe_capture` (with `capture_input`, the first attempt's end of its
  // pipe) where the output goes through a pipe, else null.
  Attempts(const TaskDir& dir, SupervisorPlan& plan, int signal_fd, OutputKeeper* capture,
           OutputCapture* pipe_capture, UniqueFd capture_input, Report report)
    : m_dir(dir),
      m_plan(plan),
      m_signal_fd(signal_fd),
      m_capture(capture),
      m_pipe_capture(pipe_capture),
      m_capture_input(std::move(capture_input)),
      m_report(std::move(report))
  {
  }

  // The wait status of the last attempt and why it was stopped.
  std::pair<int, Stopping> run()
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

  // True if the memory limit ended the last attempt.
  bool last_was_oom() const { return m_last && m_last->end == AttemptEnd::oom; }

  // Adds the last attempt to `record` (only when retries were asked for).
  void apply_last(TaskRecord& record) const
  {
    record.retry_at.reset();
    end_pause(record);
    if (record.options.retry && m_last) {
      record.attempts.push_back(finished_attempt(*m_last));
    }
  }

private:
  // Where this attempt's stdout and stderr go, where the output is captured:
  // the writing end of a pipe of its own (its end of file says that no
  // process holds it any more); the supervisor closes it once the command
  // is forked. Else invalid: the command opens its own description of
  // ID.output (output_holders.hpp).
  UniqueFd attempt_output()
  {
    if (!m_pipe_capture) {
      return UniqueFd();
    }
    if (m_number > 1) {
      UniqueFd read_end;
      if (!make_pipe(read_end, m_capture_input)) {
        return UniqueFd();
      }
      m_pipe_capture->read_from(std::move(read_end));
    }
    return std::move(m_capture_input);
  }

  // Whether a process still holds this attempt's output (see attempt_output).
  std::function<bool()> output_held_probe() const
  {
    if (m_pipe_capture) {
      return [capture = m_pipe_capture] { return capture->fd() >= 0; };
    }
    return [output = m_plan.output.get()] { return output_held_elsewhere(output); };
  }

  [[noreturn]] void fail_before_running(const std::string& reason, int code)
  {
    if (m_plan.cgroup) {
      m_plan.cgroup->remove();
    }
    if (m_number == 1) {
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
      8);
    run_exit_hook(m_dir, m_plan.lock, record);
    ::_exit(0);
  }

  // Names the forked command in the record: the first record of the task,
  // or the start of a further attempt.
  void record_start(pid_t child)
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
      remove_unrecorded_task_files(m_dir, record.id); // nothing of it behind
      m_report(std::string("1\n") + e.what());
      ::_exit(1);
    }
  }

  // An exec that failed ends the task as failed (126 or 127), without retries.
  [[noreturn]] void finish_exec_failure(const PendingCommand::Failure& failure)
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
      8);
    if (m_number == 1) {
      m_report(std::to_string(code) + "\n" + reason);
    }
    run_exit_hook(m_dir, m_plan.lock, record);
    ::_exit(0);
  }

  int run_one()
  {
    // argv and environment are built before the fork.
    UniqueFd output = attempt_output();
    if (m_pipe_capture && !output) {
      fail_before_running(
        "cannot set up the command's output: " + std::string(std::strerror(errno)), 1);
    }
    CommandImage image(m_plan.request, m_dir.path(), m_number,
                       output ? output.get() : m_plan.output.get(), m_plan.caller_umask);
    if (!m_pipe_capture) {
      image.held_output_dir = m_dir.fd();
      image.held_output_name = output_file_name(m_plan.request.record.id);
    }
    std::optional<PendingCommand> command;
    try {
      command.emplace(image);
    } catch (const Error& e) {
      fail_before_running(std::string("cannot start the command: ") + e.what(), 1);
    }
    output.close(); // the command, and whatever it starts, hold the pipe now
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
    if (const auto failure = command->release(m_plan.request)) {
      finish_exec_failure(*failure);
    }
    if (m_number == 1) {
      m_report("0\n");
    }
    // What the CLI left behind goes once `start` has its answer.
    Supervision supervision(
      m_dir, m_plan, command->pid(), m_signal_fd, m_capture, output_held_probe(),
      m_number == 1 ? Supervision::TrimMemory::first_wait : Supervision::TrimMemory::no);
    const int status = supervision.run();
    m_stopping = supervision.stopping();
    return status;
  }

  Attempt finished_attempt(const AttemptResult& result) const
  {
    return Attempt{m_number,         m_started_at,  now(),
                   result.exit_code, result.signal, std::string(attempt_end_name(result.end))};
  }

  void record_attempt_and_schedule(const AttemptResult& result)
  {
    const double delay_s = m_plan.request.record.options.retry->delay_s;
    m_retry_at = SteadyClock::now() + Milliseconds(std::llround(delay_s * 1000));
    update_running_record(m_dir, m_plan.lock, m_plan.request.record, [&](TaskRecord& r) {
      r.attempts.push_back(finished_attempt(result));
      r.exit_code = result.exit_code;
      r.signal = result.signal;
      r.retry_at = now() + Milliseconds(std::llround(delay_s * 1000));
      add_event(r, "retry_scheduled",
                "attempt " + std::to_string(m_number) + " " + attempt_end_name(result.end));
    });
    m_last.reset();
  }

  // Sleeps until the next attempt is due; false if a cancel came first.
  bool wait_before_retry()
  {
    for (;;) {
      const auto left =
        std::chrono::ceil<std::chrono::milliseconds>(m_retry_at - SteadyClock::now());
      if (left.count() <= 0) {
        return true;
      }
      pollfd fds[2] = {{m_signal_fd, POLLIN, 0}, {m_capture ? m_capture->fd() : -1, POLLIN, 0}};
      if (::poll(fds, 2, static_cast<int>(std::min<std::int64_t>(left.count(), 3600000))) <= 0) {
        continue;
      }
      if (fds[1].revents != 0) {
        m_capture->drain();
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

  const TaskDir& m_dir;
  SupervisorPlan& m_plan;
  int m_signal_fd;
  OutputKeeper* m_capture;
  OutputCapture* m_pipe_capture;
  UniqueFd m_capture_input; // the next attempt's end of the output pipe
  Report m_report;
  int m_number = 1;
  Stopping m_stopping = Stopping::no;
  TimePoint m_started_at;
  std::optional<AttemptResult> m_last;
  SteadyClock::time_point m_retry_at;
  std::uint64_t m_oom_kills_before = 0;
};

// What a task's cgroup tells at its end, applied to the final record.
struct CgroupReport
{
  std::optional<std::uint64_t> memory_peak;
  std::uint64_t pids_limit_hits = 0;
};

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

CgroupLimits cgroup_limits(const ResourceLimits& limits)
{
  return CgroupLimits{limits.memory_max, limits.pids_max, limits.cpu_max};
}

// Whether `pid` is a child of this process that was not reaped yet (so its
// pid, and the group it leads, cannot have been reused).
bool is_own_child(pid_t pid)
{
  siginfo_t info{};
  return ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0;
}

// What the phases share, and what the last-resort handler needs to know.
struct SupervisorRun
{
  const TaskDir& dir;
  SupervisorPlan& plan;
  UniqueFd signal_fd;
  std::optional<DirLock> slot;
  std::optional<OutputTrimmer> trimmer;
  std::optional<OutputCapture> capture;
  UniqueFd capture_input; // the command's end of the output pipe

  TaskRecord& record() { return plan.request.record; }

  // Sends `start` its answer ("CODE\nMESSAGE"); only the first one counts.
  void report(const std::string& line)
  {
    if (plan.report) {
      write_fully(plan.report.get(), line);
      plan.report.close();
    }
  }
  bool reported() const { return !plan.report; }
};

// Ends a start that could not begin: `start` hears why, and no file of a
// task without a record stays behind.
[[noreturn]] void refuse_start(SupervisorRun& run, const std::string& reason)
{
  remove_unrecorded_task_files(run.dir, run.record().id);
  run.report("1\n" + reason);
  ::_exit(1);
}

// Phase 1: a new session, /dev/null for stdio, no inherited descriptor but
// the plan's, a subreaper, and the signals it handles on a signalfd.
void detach(SupervisorRun& run)
{
  ::setsid();
  if (test_seam(TestSeam::stop_supervisor) != nullptr) {
    // Stops here so a crash test can attach a tracer to the supervisor alone.
    clear_test_seam(TestSeam::stop_supervisor);
    ::raise(SIGSTOP);
  }
  redirect_stdio_to_null();
  auto& plan = run.plan;
  close_descriptors_except({run.dir.fd(), plan.lock.fd(), plan.output.get(), plan.report.get()});
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  ::signal(SIGPIPE, SIG_IGN);
  sigset_t handled;
  sigemptyset(&handled);
  for (const int sig : {SIGCHLD, SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1}) {
    sigaddset(&handled, sig);
  }
  ::sigprocmask(SIG_BLOCK, &handled, nullptr);
  run.signal_fd = UniqueFd(::signalfd(-1, &handled, SFD_CLOEXEC | SFD_NONBLOCK));
}

// The output bound of --max-output: the command writes ID.output itself and
// the supervisor punches out its middle (so the output survives the
// supervisor's death without SIGPIPE for the command); where the file system
// cannot punch holes, the command writes to a pipe the supervisor copies the
// head from.
void prepare_output_bound(SupervisorRun& run)
{
  auto& plan = run.plan;
  if (!plan.request.max_output) {
    return;
  }
  run.trimmer = OutputTrimmer::create(plan.output.get(), *plan.request.max_output);
  if (run.trimmer) {
    return;
  }
  UniqueFd capture_output;
  if (!make_pipe(capture_output, run.capture_input)) {
    refuse_start(run, "cannot set up the supervisor: " + std::string(std::strerror(errno)));
  }
  run.capture.emplace(std::move(capture_output), plan.output.get(), *plan.request.max_output);
}

// Phase 2: room for the final record (a task that starts has it; on a full
// disk it does not start), the task's cgroup, the wait for a turn with
// --queue or --after, and the output bound.
void prepare(SupervisorRun& run)
{
  auto& plan = run.plan;
  TaskRecord& record = run.record();
  if (const int err = reserve_outcome_space(plan.lock); err == ENOSPC || err == EDQUOT) {
    refuse_start(run,
                 "no room for the task's records in " + run.dir.path() + ": " + std::strerror(err));
  }
  // --memory-max, --pids-max, --cpu-max: the task's own cgroup, made before
  // the command exists so that its whole tree starts inside.
  if (record.options.limits.any()) {
    auto cgroup = TaskCgroup::create(record.id, cgroup_limits(record.options.limits));
    if (!cgroup) {
      refuse_start(run, "cannot create the task's cgroup: " + cgroup.error());
    }
    plan.cgroup = std::move(cgroup).value();
    record.cgroup = plan.cgroup->paths();
  }
  if (!run.signal_fd) {
    refuse_start(run, "cannot set up the supervisor: " + std::string(std::strerror(errno)));
  }
  // The queued record, then the wait (queue_wait reports to `start` itself);
  // the slot is held while the command runs.
  if (must_wait_for_turn(record)) {
    release_unused_memory(); // the wait for a turn may be long
    run.slot = wait_for_turn(
      run.dir, plan.lock, record, run.signal_fd.get(), plan.reconcile,
      [&](const std::string& line) { run.report(line); }, plan.retired_watch);
  }
  prepare_output_bound(run);
}

// Phases 3 to 5: launch and supervise every attempt, then the final record
// and the hook.
[[noreturn]] void launch_supervise_finish(SupervisorRun& run)
{
  auto& plan = run.plan;
  OutputKeeper* keeper = run.trimmer   ? static_cast<OutputKeeper*>(&*run.trimmer)
                         : run.capture ? static_cast<OutputKeeper*>(&*run.capture)
                                       : nullptr;
  Attempts attempts(run.dir, plan, run.signal_fd.get(), keeper,
                    run.capture ? &*run.capture : nullptr, std::move(run.capture_input),
                    [&](const std::string& line) { run.report(line); });
  // Not a structured binding: the lambda below uses both (clang 14 cannot
  // capture bindings).
  const auto outcome = attempts.run();
  const auto& status = outcome.first;
  const auto& stopping = outcome.second;
  CgroupReport cgroup_report;
  if (plan.cgroup) {
    cgroup_report = CgroupReport{plan.cgroup->memory_peak(), plan.cgroup->pids_limit_hits()};
    plan.cgroup->remove(); // KILLs what the command left in it
  }
  run.slot.reset(); // the queue's next task may start once this record is final
  struct stat st
  {
  };
  const std::uint64_t bytes =
    ::fstat(plan.output.get(), &st) == 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
  // The output is durable before the record that counts its bytes is
  // (fdatasync: its size, not its times, is needed to read it back).
  const int output_sync_error = sync_data(plan.output.get());
  save_final_record(
    run.dir, plan.lock, run.record(),
    [&](TaskRecord& r) {
      r.output.bytes = bytes;
      if (output_sync_error != 0) {
        add_event(r, "output_error",
                  std::string("cannot make the output durable: ") +
                    std::strerror(output_sync_error));
      }
      if (keeper) {
        record_output_bound(r.output, *keeper);
        if (!keeper->write_error().empty()) {
          add_event(r, "output_error", keeper->write_error());
        }
      }
      attempts.apply_last(r);
      apply_outcome(r, status, stopping, plan.request);
      if (plan.cgroup) {
        apply_cgroup_report(r, cgroup_report, attempts.last_was_oom());
      }
    },
    12);
  run_exit_hook(run.dir, plan.lock, run.record());
  ::_exit(0);
}

// The last resort for an exception in any phase: stops the command (it can
// no longer be supervised), records the task as `lost` with the reason,
// answers `start` if it still waits, and exits. Nothing escapes it.
[[noreturn]] void abandon(SupervisorRun& run, const char* what) noexcept
{
  try {
    const std::string reason = std::string("supervisor failed: ") + what;
    if (const auto& child = run.record().child;
        child && child->pid > 1 && is_own_child(child->pid)) {
      ::kill(-child->pgid, SIGKILL); // an unreaped child: its pid and group cannot be another's
      ::kill(child->pid, SIGKILL);
    }
    if (run.plan.cgroup) {
      run.plan.cgroup->remove();
    }
    if (!run.reported()) {
      remove_unrecorded_task_files(run.dir, run.record().id);
      run.report("1\n" + reason);
    }
    if (load_record(run.dir, run.record().id).status != LoadStatus::missing) {
      save_final_record(
        run.dir, run.plan.lock, run.record(),
        [&](TaskRecord& r) {
          add_event(r, "supervisor_error", what);
          finish_record(r, TaskState::lost, reason);
        },
        3);
    }
  } catch (...) {
    // nothing more can be done
  }
  ::_exit(1);
}

} // namespace

void run_supervisor(const TaskDir& dir, SupervisorPlan plan)
{
  SupervisorRun run{dir, plan, {}, {}, {}, {}, {}};
  try {
    detach(run);
    prepare(run);
    launch_supervise_finish(run);
  } catch (const std::exception& e) {
    abandon(run, e.what());
  } catch (...) {
    abandon(run, "unknown exception");
  }
}

} // namespace bgtask
