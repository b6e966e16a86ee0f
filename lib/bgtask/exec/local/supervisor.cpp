// The supervisor: one process per task, forked by `start`.
//
// Order of a launch: fork the command (it blocks on a "go" pipe), write the
// running record naming both processes, release the command, learn from a
// CLOEXEC pipe whether exec succeeded, report to `start`. A supervisor
// killed before "go" leaves a command that exits 127 without running
// anything, and a record (if any) that reconciles to `lost`.

#include <bgtask/exec/local/exit_hook.hpp>
#include <bgtask/exec/local/output_capture.hpp>
#include <bgtask/exec/local/output_trimmer.hpp>
#include <bgtask/exec/local/retry_policy.hpp>
#include <bgtask/exec/local/supervisor.hpp>
#include <bgtask/exec/local/task_gate.hpp>
#include <bgtask/proc/child_exec.hpp>
#include <bgtask/proc/memory_trim.hpp>
#include <bgtask/proc/process_info.hpp>
#include <bgtask/proc/process_tree.hpp>
#include <bgtask/store/outcome_reserve.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/store/task_files.hpp>
#include <bgtask/util/error.hpp>

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

extern char** environ;

namespace bgtask {

namespace {

using SteadyClock = std::chrono::steady_clock;

enum class ExecStage : int { chdir = 1, exec = 2 };

struct ExecFailure
{
  ExecStage stage;
  int error;
};

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

// Closes every descriptor above 2 except those in `keep`.
void close_other_descriptors(std::initializer_list<int> keep)
{
  std::vector<int> sorted(keep);
  std::sort(sorted.begin(), sorted.end());
  unsigned int next = 3;
  for (const int fd : sorted) {
    if (fd >= static_cast<int>(next)) {
      if (fd > static_cast<int>(next)) {
        ::close_range(next, static_cast<unsigned int>(fd) - 1, 0);
      }
      next = static_cast<unsigned int>(fd) + 1;
    }
  }
  ::close_range(next, ~0U, 0);
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

std::vector<std::string> build_environment(const LaunchRequest& request, const std::string& dir,
                                           int attempt)
{
  std::vector<std::string> env;
  const auto overridden = [&](std::string_view entry) {
    const auto name = entry.substr(0, entry.find('=') + 1);
    if (name == "BGTASK_ID=" || name == "BGTASK_DIR=" || name == "BGTASK_ATTEMPT=") {
      return true;
    }
    return std::any_of(request.env_additions.begin(), request.env_additions.end(),
                       [&](const std::string& add) { return add.starts_with(name); });
  };
  for (char** entry = environ; *entry != nullptr; ++entry) {
    if (!overridden(*entry)) {
      env.emplace_back(*entry);
    }
  }
  env.insert(env.end(), request.env_additions.begin(), request.env_additions.end());
  env.push_back("BGTASK_ID=" + request.record.id);
  env.push_back("BGTASK_DIR=" + dir);
  env.push_back("BGTASK_ATTEMPT=" + std::to_string(attempt));
  return env;
}

// In the command's process: wait for "go", set up, exec. Never returns.
[[noreturn]] void exec_command(const LaunchRequest& request, std::vector<std::string> env,
                               int go_fd, int error_fd, int output_fd, mode_t caller_umask)
{
  reset_child_signals(ProcessGroup::own);
  char go = 0;
  while (::read(go_fd, &go, 1) < 0 && errno == EINTR) {
  }
  if (go != 'g') {
    ::_exit(127);
  }
  const auto fail = [&](ExecStage stage) {
    const ExecFailure failure{stage, errno};
    write_fully(error_fd,
                std::string_view(reinterpret_cast<const char*>(&failure), sizeof(failure)));
    ::_exit(failure.error == ENOENT || failure.error == ENOTDIR ? 127 : 126);
  };
  if (::chdir(request.record.cwd.c_str()) != 0) {
    fail(ExecStage::chdir);
  }
  ::dup2(output_fd, 1);
  ::dup2(output_fd, 2);
  ::umask(caller_umask);
  close_other_descriptors({error_fd});
  std::vector<std::string> argv = request.argv;
  auto c_argv = to_c_strings(argv);
  auto c_env = to_c_strings(env);
  ::execvpe(c_argv[0], c_argv.data(), c_env.data());
  fail(ExecStage::exec);
  ::_exit(127);
}

std::string describe_exec_failure(const LaunchRequest& request, const ExecFailure& failure)
{
  if (failure.stage == ExecStage::chdir) {
    return "cannot change to directory " + request.record.cwd + ": " + std::strerror(failure.error);
  }
  return "cannot execute " + request.argv.front() + ": " + std::strerror(failure.error);
}

std::string signal_name(int sig)
{
  const char* abbrev = ::sigabbrev_np(sig);
  return abbrev != nullptr ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

// Writes the final record: re-reads it under the update lock, applies
// `change` and saves it. After a failure it gives the space reserved in the
// lock file back (so a full disk has room for the retry) and retries with
// backoff; if every attempt fails it leaves the final record as a note in
// the lock file, where reconciliation finds it.
template <typename Change>
bool update_record(const TaskDir& dir, TaskLock& lock, TaskRecord& fallback, Change change,
                   int attempts)
{
  std::string failure;
  for (int attempt = 0; attempt < attempts; ++attempt) {
    try {
      UpdateLockGuard guard(lock);
      auto loaded = load_record(dir, fallback.id);
      TaskRecord record = loaded.status == LoadStatus::ok ? std::move(loaded.record) : fallback;
      change(record);
      save_record(dir, record);
      fallback = std::move(record);
      drop_outcome_reserve(lock);
      return true;
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

// Writes an intermediate record (a new attempt, a pending retry): re-reads
// it under the update lock and applies `change`. Best effort: on failure
// the supervisor goes on, and the final record is written as usual.
template <typename Change>
void update_running_record(const TaskDir& dir, TaskLock& lock, TaskRecord& record, Change change)
{
  try {
    UpdateLockGuard guard(lock);
    auto loaded = load_record(dir, record.id);
    TaskRecord current = loaded.status == LoadStatus::ok ? std::move(loaded.record) : record;
    change(current);
    save_record(dir, current);
    record = std::move(current);
  } catch (const Error&) {
    change(record);
  }
}

enum class Stopping { no, cancel, timeout };

// Marks the pause of a record as over, adding its time to `paused_s`.
void end_pause(TaskRecord& record)
{
  if (record.pause.paused && record.pause.since) {
    record.pause.paused_s += static_cast<double>((now() - *record.pause.since).count()) / 1000.0;
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
  Supervision(const TaskDir& dir, SupervisorPlan& plan, pid_t child, int signal_fd,
              OutputKeeper* capture)
    : m_dir(dir),
      m_plan(plan),
      m_child(child),
      m_signal_fd(signal_fd),
      m_capture(capture)
  {
  }

  // Runs until the command exits; returns its wait status. The timeout's
  // clock stands still while the task is paused.
  int run()
  {
    if (m_plan.request.timeout) {
      m_timeout_at = SteadyClock::now() + *m_plan.request.timeout;
    }
    std::optional<int> status;
    while (!status) {
      const auto now = SteadyClock::now();
      const bool timing = m_stopping == Stopping::no && !m_paused;
      if (timing && m_timeout_at && now >= *m_timeout_at) {
        begin_stop(Stopping::timeout, m_plan.request.grace);
      }
      if (m_kill_at && now >= *m_kill_at) {
        signal_tree(SIGKILL);
        m_kill_at.reset();
      }
      const auto next = m_kill_at
                          ? m_kill_at
                          : (m_stopping == Stopping::no && !m_paused ? m_timeout_at : std::nullopt);
      status = wait_for_events(next);
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

  // The command's group, every descendant and, with a cgroup, every process in it.
  void signal_tree(int sig)
  {
    auto pids = find_descendants(::getpid());
    if (m_plan.cgroup) {
      for (const int pid : m_plan.cgroup->processes()) {
        if (std::find(pids.begin(), pids.end(), pid) == pids.end()) {
          pids.push_back(pid);
        }
      }
    }
    signal_processes(m_child, pids, sig);
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
      const auto descendants = find_descendants(::getpid());
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
  SteadyClock::time_point m_capture_resume{};
  Stopping m_stopping = Stopping::no;
  std::optional<SteadyClock::time_point> m_kill_at;
  std::optional<SteadyClock::time_point> m_timeout_at;
  bool m_paused = false;
  bool m_frozen_by_cgroup = false;
  SteadyClock::time_point m_paused_at;
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

// A command forked for one attempt, blocked until released.
struct Spawned
{
  pid_t pid = -1;
  UniqueFd go;
  UniqueFd exec_errors;
};

// Forks the command for attempt `number` in its own process group; it
// waits on the go pipe. Pid -1 (errno set) if a pipe or the fork failed.
Spawned spawn_command(const TaskDir& dir, const SupervisorPlan& plan, int number, int output_fd)
{
  int go_pipe[2];
  int error_pipe[2];
  if (::pipe2(go_pipe, O_CLOEXEC) != 0) {
    return {};
  }
  if (::pipe2(error_pipe, O_CLOEXEC) != 0) {
    ::close(go_pipe[0]);
    ::close(go_pipe[1]);
    return {};
  }
  auto env = build_environment(plan.request, dir.path(), number);
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(go_pipe[1]);
    ::close(error_pipe[0]);
    exec_command(plan.request, std::move(env), go_pipe[0], error_pipe[1], output_fd,
                 plan.caller_umask);
  }
  const int fork_error = errno;
  ::close(go_pipe[0]);
  ::close(error_pipe[1]);
  Spawned spawned{child, UniqueFd(go_pipe[1]), UniqueFd(error_pipe[0])};
  if (child < 0) {
    errno = fork_error;
    return Spawned{};
  }
  ::setpgid(child, child);
  return spawned;
}

// Lets a spawned command exec; returns how exec failed, or nullopt if it runs.
std::optional<ExecFailure> release_command(Spawned& spawned)
{
  write_fully(spawned.go.get(), "g");
  spawned.go.close();
  ExecFailure failure{};
  ssize_t got = 0;
  while ((got = ::read(spawned.exec_errors.get(), &failure, sizeof(failure))) < 0 &&
         errno == EINTR) {
  }
  spawned.exec_errors.close();
  if (got == static_cast<ssize_t>(sizeof(failure))) {
    return failure;
  }
  return std::nullopt;
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

  Attempts(const TaskDir& dir, SupervisorPlan& plan, int signal_fd, OutputKeeper* capture,
           UniqueFd capture_input, Report report)
    : m_dir(dir),
      m_plan(plan),
      m_signal_fd(signal_fd),
      m_capture(capture),
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
  int command_output() const
  {
    return m_capture_input ? m_capture_input.get() : m_plan.output.get();
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
    update_record(
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
      record.owner = OwnerIdentity{::getpid(), random_token(),
                                   read_process_stat(::getpid()).value_or(ProcessStat{}).start_time,
                                   current_boot_id(), current_host_name()};
    }
    record.child = identity;
    record.state = TaskState::running;
    record.started_at = m_started_at;
    add_event(record, "started");
    try {
      save_started_record(m_dir, m_plan.lock, record);
    } catch (const Error& e) {
      ::kill(child, SIGKILL);
      if (load_record(m_dir, record.id).status == LoadStatus::missing) {
        // No record names the task: leave nothing of it behind.
        ::unlinkat(m_dir.fd(), output_file_name(record.id).c_str(), 0);
        ::unlinkat(m_dir.fd(), lock_file_name(record.id).c_str(), 0);
      }
      m_report(std::string("1\n") + e.what());
      ::_exit(1);
    }
  }

  // An exec that failed ends the task as failed (126 or 127), without retries.
  [[noreturn]] void finish_exec_failure(pid_t child, const ExecFailure& failure)
  {
    int status = 0;
    ::waitpid(child, &status, 0);
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 127;
    const auto reason = describe_exec_failure(m_plan.request, failure);
    TaskRecord& record = m_plan.request.record;
    if (m_plan.cgroup) {
      m_plan.cgroup->remove();
      record.cgroup.reset();
    }
    update_record(
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
    Spawned spawned = spawn_command(m_dir, m_plan, m_number, command_output());
    if (spawned.pid < 0) {
      fail_before_running("cannot start the command: " + std::string(std::strerror(errno)), 1);
    }
    if (!m_plan.request.record.options.retry) {
      m_capture_input.close(); // the capture then sees the end of the output
    }
    if (m_plan.cgroup) {
      std::string error;
      if (!m_plan.cgroup->add_process(spawned.pid, error)) {
        ::kill(spawned.pid, SIGKILL);
        ::waitpid(spawned.pid, nullptr, 0);
        fail_before_running("cannot move the command into its cgroup: " + error, 1);
      }
      m_oom_kills_before = m_plan.cgroup->oom_kills();
    }
    record_start(spawned.pid);
    if (const auto failure = release_command(spawned)) {
      finish_exec_failure(spawned.pid, *failure);
    }
    if (m_number == 1) {
      m_report("0\n");
      release_unused_memory(); // what the CLI left behind, now that `start` has its answer
    }
    Supervision supervision(m_dir, m_plan, spawned.pid, m_signal_fd, m_capture);
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
  UniqueFd m_capture_input; // kept open across attempts when retries may follow
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

// Detaches the supervisor (new session, stdio on /dev/null, no other
// inherited descriptors, child subreaper) and returns a signalfd for the
// signals it handles (invalid if it could not be made).
UniqueFd detach_supervisor(const TaskDir& dir, const SupervisorPlan& plan)
{
  ::setsid();
  if (std::getenv("BGTASK_TEST_STOP_SUPERVISOR") != nullptr) {
    // Test seam: stops here so a crash test can attach a tracer to the supervisor alone.
    ::unsetenv("BGTASK_TEST_STOP_SUPERVISOR");
    ::raise(SIGSTOP);
  }
  redirect_stdio_to_null();
  close_other_descriptors({dir.fd(), plan.lock.fd(), plan.output.get(), plan.report.get()});
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  ::signal(SIGPIPE, SIG_IGN);

  sigset_t handled;
  sigemptyset(&handled);
  for (const int sig : {SIGCHLD, SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1}) {
    sigaddset(&handled, sig);
  }
  ::sigprocmask(SIG_BLOCK, &handled, nullptr);
  return UniqueFd(::signalfd(-1, &handled, SFD_CLOEXEC | SFD_NONBLOCK));
}

// Writes the final record once the last attempt ended: output size and
// bound, the outcome, the attempts, and what the cgroup reported (after
// removing it, which KILLs what the command left in it).
void write_final_record(const TaskDir& dir, SupervisorPlan& plan, const Attempts& attempts,
                        std::pair<int, Stopping> end, OutputKeeper* keeper,
                        std::optional<DirLock>& slot)
{
  CgroupReport cgroup_report;
  if (plan.cgroup) {
    cgroup_report = CgroupReport{plan.cgroup->memory_peak(), plan.cgroup->pids_limit_hits()};
    plan.cgroup->remove();
  }
  slot.reset(); // the queue's next task may start once this record is final
  struct stat st
  {
  };
  const std::uint64_t bytes =
    ::fstat(plan.output.get(), &st) == 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
  update_record(
    dir, plan.lock, plan.request.record,
    [&](TaskRecord& r) {
      r.output.bytes = bytes;
      if (keeper) {
        record_output_bound(r.output, *keeper);
        if (!keeper->write_error().empty()) {
          add_event(r, "output_error", keeper->write_error());
        }
      }
      attempts.apply_last(r);
      apply_outcome(r, end.first, end.second, plan.request);
      if (plan.cgroup) {
        apply_cgroup_report(r, cgroup_report, attempts.last_was_oom());
      }
    },
    12);
}

} // namespace

void run_supervisor(const TaskDir& dir, SupervisorPlan plan)
{
  UniqueFd signal_fd = detach_supervisor(dir, plan);

  auto& request = plan.request;
  TaskRecord& record = request.record;
  const auto report = [&](const std::string& line) {
    write_fully(plan.report.get(), line);
    plan.report.close();
  };
  // Before any record names the task: leave nothing of it behind.
  const auto abandon = [&](const std::string& reason) {
    if (load_record(dir, record.id).status == LoadStatus::missing) {
      ::unlinkat(dir.fd(), output_file_name(record.id).c_str(), 0);
      ::unlinkat(dir.fd(), lock_file_name(record.id).c_str(), 0);
    }
    report("1\n" + reason);
    ::_exit(1);
  };
  // A task that starts has room for its final record; on a full disk it
  // does not start.
  if (const int err = reserve_outcome_space(plan.lock); err == ENOSPC || err == EDQUOT) {
    abandon("no room for the task's records in " + dir.path() + ": " + std::strerror(err));
  }
  // --memory-max, --pids-max, --cpu-max: the task's own cgroup, made before
  // the command exists so that its whole tree starts inside.
  if (record.options.limits.any()) {
    std::string error;
    plan.cgroup = TaskCgroup::create(record.id, cgroup_limits(record.options.limits), error);
    if (!plan.cgroup) {
      abandon("cannot create the task's cgroup: " + error);
    }
    record.cgroup = plan.cgroup->paths();
  }

  if (!signal_fd) {
    report("1\ncannot set up the supervisor: " + std::string(std::strerror(errno)));
    ::_exit(1);
  }
  // --queue, --after: the queued record, then the wait for this task's turn
  // (it reports to `start` itself); the slot is held while the command runs.
  std::optional<DirLock> slot;
  if (needs_gate(record)) {
    release_unused_memory(); // the wait for a turn may be long
    slot = wait_for_turn(dir, plan.lock, record, signal_fd.get(), plan.reconcile, report);
  }
  // With --max-output the command writes ID.output itself and the
  // supervisor punches out its middle (so the output survives the
  // supervisor's death without SIGPIPE for the command); where the file
  // system cannot punch holes, the command writes to a pipe the supervisor
  // copies the head from.
  std::optional<OutputTrimmer> trimmer;
  std::optional<OutputCapture> capture;
  UniqueFd capture_input;
  if (request.max_output) {
    trimmer = OutputTrimmer::create(plan.output.get(), *request.max_output);
  }
  if (request.max_output && !trimmer) {
    int output_pipe[2];
    if (::pipe2(output_pipe, O_CLOEXEC) != 0) {
      report("1\ncannot set up the supervisor: " + std::string(std::strerror(errno)));
      ::_exit(1);
    }
    capture.emplace(UniqueFd(output_pipe[0]), plan.output.get(), *request.max_output);
    capture_input = UniqueFd(output_pipe[1]);
  }
  OutputKeeper* keeper = trimmer   ? static_cast<OutputKeeper*>(&*trimmer)
                         : capture ? static_cast<OutputKeeper*>(&*capture)
                                   : nullptr;
  Attempts attempts(dir, plan, signal_fd.get(), keeper, std::move(capture_input), report);
  const auto end = attempts.run();
  write_final_record(dir, plan, attempts, end, keeper, slot);
  run_exit_hook(dir, plan.lock, record);
  ::_exit(0);
}

} // namespace bgtask
