#include <bgtask/core/exit_status.hpp>
#include <bgtask/exec/local/exit_hook.hpp>
#include <bgtask/proc/child_exec.hpp>
#include <bgtask/proc/process_info.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/util/error.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace bgtask {

namespace {

// How much of the end of the hook's output an event keeps.
constexpr std::size_t k_kept_output = 200;

std::vector<std::string> hook_environment(const TaskDir& dir, const TaskRecord& record)
{
  const std::vector<std::string> added{
    "BGTASK_ID=" + record.id,
    "BGTASK_DIR=" + dir.path(),
    "BGTASK_STATE=" + std::string(to_string(record.state)),
    "BGTASK_EXIT_CODE=" + std::to_string(exit_status_of(record)),
    "BGTASK_OUTPUT=" + record.output.path,
  };
  std::vector<std::string> env;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const auto name = text.substr(0, text.find('=') + 1);
    const bool replaced = std::any_of(added.begin(), added.end(),
                                      [&](const std::string& a) { return a.starts_with(name); });
    if (!replaced) {
      env.emplace_back(text);
    }
  }
  env.insert(env.end(), added.begin(), added.end());
  return env;
}

// In the hook's process: never returns.
[[noreturn]] void exec_hook(const TaskRecord& record, std::vector<std::string>& env, int output_fd)
{
  reset_child_signals(ProcessGroup::own);
  const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (null_fd >= 0) {
    ::dup2(null_fd, 0);
  }
  ::dup2(output_fd, 1);
  ::dup2(output_fd, 2);
  ::close_range(3, ~0U, 0);
  if (record.cwd.empty() || ::chdir(record.cwd.c_str()) != 0) {
    ::chdir("/");
  }
  const auto c_env = to_c_strings(env);
  std::string shell = "/bin/sh";
  std::string flag = "-c";
  std::string hook = *record.on_exit;
  char* argv[] = {shell.data(), flag.data(), hook.data(), nullptr};
  ::execve("/bin/sh", argv, c_env.data());
  ::_exit(127);
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
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC | O_NONBLOCK) != 0) {
    return std::string("cannot run: ") + std::strerror(errno);
  }
  UniqueFd read_end(pipe_fds[0]);
  UniqueFd write_end(pipe_fds[1]);
  auto env = hook_environment(dir, record);
  const pid_t pid = ::fork();
  if (pid < 0) {
    return std::string("cannot run: ") + std::strerror(errno);
  }
  if (pid == 0) {
    exec_hook(record, env, write_end.get());
  }
  ::setpgid(pid, pid);
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

} // namespace

void run_exit_hook(const TaskDir& dir, TaskLock& lock, const TaskRecord& record)
{
  if (!record.on_exit) {
    return;
  }
  const std::string message = run_hook(dir, record);
  try {
    UpdateLockGuard guard(lock);
    auto loaded = load_record(dir, record.id);
    if (loaded.status != LoadStatus::ok) {
      return;
    }
    add_event(loaded.record, "on_exit", message);
    save_record(dir, loaded.record);
  } catch (const Error&) {
    // the hook ran; only its note is lost
  }
}

} // namespace bgtask
