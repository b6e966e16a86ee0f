#include <bgtask/core/exit_status.hpp>
#include <bgtask/exec/local/exit_hook.hpp>
#include <bgtask/exec/local/stop_tree.hpp>
#include <bgtask/exec/local/task_processes.hpp>
#include <bgtask/proc/environment.hpp>
#include <bgtask/proc/process_info.hpp>
#include <bgtask/proc/process_tree.hpp>
#include <bgtask/proc/spawn.hpp>
#include <bgtask/proc/stop_loop.hpp>
#include <bgtask/store/record_transaction.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/util/error.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace bgtask {

namespace {

// How much of the end of the hook's output an event keeps.
constexpr std::size_t k_kept_output = 200;

std::vector<std::string> hook_environment(const TaskDir& dir, const TaskRecord& record)
{
  auto additions = own_binary_entries();
  additions.insert(additions.end(), {
                                      "BGTASK_ID=" + record.id,
                                      "BGTASK_NAME=" + record.name.value_or(""),
                                      "BGTASK_DIR=" + dir.path(),
                                      "BGTASK_STATE=" + std::string(to_string(record.state)),
                                      "BGTASK_EXIT_CODE=" + std::to_string(exit_status_of(record)),
                                      "BGTASK_OUTPUT=" + record.output.path,
                                    });
  return merged_environment(additions);
}

// The task's directory if the hook can run there, else "/".
std::string hook_directory(const TaskRecord& record)
{
  struct stat st
  {
  };
  if (!record.cwd.empty() && ::stat(record.cwd.c_str(), &st) == 0 && S_ISDIR(st.st_mode) &&
      ::access(record.cwd.c_str(), X_OK) == 0) {
    return record.cwd;
  }
  return "/";
}

// Keeps the last k_kept_output bytes of what the hook writes.
void read_available(int fd, std::string& kept)
{
  char buffer[4096];
  ssize_t n = 0;
  while ((n = ::read(fd, buffer, sizeof(buffer))) > 0) {
    kept.append(buffer, static_cast<std::size_t>(n));
    if (kept.size() > k_kept_output) {
      kept.erase(0, kept.size() - k_kept_output);
    }
  }
}

// The last non-empty line of `text`, with control characters replaced.
std::string last_line(std::string text)
{
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) {
    text.pop_back();
  }
  text =
    text.substr(text.find_last_of('\n') == std::string::npos ? 0 : text.find_last_of('\n') + 1);
  std::replace_if(
    text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; }, ' ');
  return text;
}

// Runs the hook; returns the event message.
std::string run_hook(const TaskDir& dir, const TaskRecord& record)
{
  UniqueFd read_end;
  UniqueFd write_end;
  if (!make_pipe(read_end, write_end, O_NONBLOCK)) {
    return std::string("cannot run: ") + std::strerror(errno);
  }
  SpawnRequest spawn;
  spawn.argv = {"/bin/sh", "-c", *record.on_exit};
  spawn.env = hook_environment(dir, record);
  spawn.stdout_fd = write_end.get();
  spawn.stderr_fd = write_end.get();
  spawn.group = ProcessGroup::own;
  spawn.cwd = hook_directory(record);
  const Spawned spawned = spawn_program(spawn);
  if (spawned.pid < 0) {
    return std::string("cannot run: ") + std::strerror(spawned.error);
  }
  const pid_t pid = spawned.pid;
  write_end.close();
  const UniqueFd process = open_pidfd(pid);
  std::string kept;
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + k_exit_hook_limit;
  bool timed_out = false;
  bool pipe_open = true;
  for (;;) {
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      read_available(read_end.get(), kept);
      if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        return "exit 0";
      }
      std::string message = timed_out ? "killed after " + format_duration(k_exit_hook_limit)
                            : WIFEXITED(status)
                              ? "failed: exit " + std::to_string(WEXITSTATUS(status))
                              : "failed: killed by signal " + std::to_string(WTERMSIG(status));
      const std::string line = last_line(kept);
      return line.empty() ? message : message + ": " + line;
    }
    const auto left = std::chrono::ceil<Milliseconds>(deadline - Clock::now());
    if (left.count() <= 0 && !timed_out) {
      timed_out = true;
      ::kill(-pid, SIGKILL);
      continue;
    }
    // Without a pidfd (or once killed), wake up now and then to reap.
    const int wait_ms =
      process && !timed_out ? static_cast<int>(std::max<std::int64_t>(left.count(), 0)) : 100;
    pollfd fds[2] = {{pipe_open ? read_end.get() : -1, POLLIN, 0}, {process.get(), POLLIN, 0}};
    if (::poll(fds, 2, wait_ms) > 0 && (fds[0].revents & (POLLIN | POLLHUP)) != 0) {
      read_available(read_end.get(), kept);
      pipe_open = (fds[0].revents & POLLHUP) == 0;
    }
  }
}

// Reaps the children of this process that have exited, without waiting.
void reap_exited_children()
{
  while (::waitpid(-1, nullptr, WNOHANG) > 0) {
  }
}

// Stops what the hook left running: every descendant of this process (the
// hook's keeper) but other tasks' supervisors and their trees gets TERM,
// then KILL after `grace`.
void stop_hook_leftovers(std::string_view id, Milliseconds grace)
{
  const auto signal = [&](int sig) {
    reap_exited_children();
    const auto pids = supervised_processes(::getpid(), id);
    signal_processes(0, pids, sig);
    return static_cast<int>(pids.size());
  };
  const auto alive = [&] {
    reap_exited_children();
    return !supervised_processes(::getpid(), id).empty();
  };
  stop_processes(signal, alive, grace, ReapChildren::no);
}

// Appends the hook's `on_exit` event to the record; best effort.
void note_hook_result(const TaskDir& dir, TaskLock& lock, const TaskRecord& record,
                      const std::string& message)
{
  try {
    update_record(dir, lock, record.id, [&](TaskRecord& current) {
      add_event(current, "on_exit", message);
      return Change::save;
    });
  } catch (const Error&) {
    // the hook ran; only its note is lost
  }
}

} // namespace

void run_exit_hook(const TaskDir& dir, TaskLock& lock, const TaskRecord& record)
{
  if (!record.on_exit) {
    return;
  }
  // The keeper: a child of the supervisor that runs the hook as the
  // subreaper of all it starts, so what the hook leaves is told apart from
  // what the command left (the supervisor's, never stopped with the task).
  const pid_t keeper = ::fork();
  if (keeper < 0) {
    note_hook_result(dir, lock, record, std::string("cannot run: ") + std::strerror(errno));
    return;
  }
  if (keeper == 0) {
    try { // nothing may unwind out of the keeper into the supervisor's code
      ::prctl(PR_SET_CHILD_SUBREAPER, 1);
      const std::string message = run_hook(dir, record);
      stop_hook_leftovers(record.id, from_seconds(record.grace_s));
      note_hook_result(dir, lock, record, message);
    } catch (...) {
      ::_exit(1);
    }
    ::_exit(0);
  }
  while (::waitpid(keeper, nullptr, 0) < 0 && errno == EINTR) {
  }
}

} // namespace bgtask
