#include <bgtask/exec/local/command_launch.hpp>
#include <bgtask/exec/local/output_holders.hpp>
#include <bgtask/proc/environment.hpp>
#include <bgtask/proc/raw_syscall.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/fd_io.hpp>

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace bgtask {

namespace {

enum class ExecStage : int { chdir = 1, exec = 2 };

struct ExecFailure
{
  ExecStage stage;
  int error;
};

// The value of PATH in `env`, or execvp's default when it has none.
const char* search_path(char* const* env)
{
  for (; *env != nullptr; ++env) {
    if (__builtin_strncmp(*env, "PATH=", 5) == 0) {
      return *env + 5;
    }
  }
  return "/bin:/usr/bin";
}

// `dir`/`name` into `out` (PATH_MAX bytes), or `name` alone for an empty
// `dir` (the current directory, as a PATH entry); false if too long.
bool join_path(const char* dir, std::size_t dir_length, const char* name, char* out)
{
  const std::size_t name_length = __builtin_strlen(name);
  if (dir_length + 1 + name_length >= PATH_MAX) {
    return false;
  }
  std::size_t at = 0;
  if (dir_length > 0) {
    __builtin_memcpy(out, dir, dir_length);
    at = dir_length;
    out[at++] = '/';
  }
  __builtin_memcpy(out + at, name, name_length + 1);
  return true;
}

// Calls `visit(candidate)` for `name` joined to each entry of `path` until
// it returns true; false if none did.
template <typename Visit>
bool for_each_on_path(const char* name, const char* path, char* candidate, Visit visit)
{
  for (const char* dir = path;; ++dir) {
    const char* end = __builtin_strchr(dir, ':');
    const std::size_t dir_length =
      end ? static_cast<std::size_t>(end - dir) : __builtin_strlen(dir);
    if (join_path(dir, dir_length, name, candidate) && visit(candidate)) {
      return true;
    }
    if (end == nullptr) {
      return false;
    }
    dir = end;
  }
}

// Where execvp would find `name` on `path`: the first `DIR/name` that is an
// executable regular file, written to `out` (PATH_MAX bytes); false if none
// is, or `name` has a slash (execvp then runs it as it is).
bool find_on_path(const char* name, const char* path, char* out)
{
  if (*name == '\0' || __builtin_strchr(name, '/') != nullptr) {
    return false;
  }
  return for_each_on_path(name, path, out, [](const char* candidate) {
    struct stat st
    {
    };
    return raw::syscall(SYS_newfstatat, AT_FDCWD, candidate, &st, 0) == 0 && S_ISREG(st.st_mode) &&
           raw::syscall(SYS_faccessat, AT_FDCWD, candidate, X_OK) == 0;
  });
}

// execve(2), and for a file the kernel cannot execute (ENOEXEC) /bin/sh
// running it as a script, as execvp does; returns -errno.
long exec_file(const char* file, char* const* argv, char* const* env, char** script_argv)
{
  const long error = raw::syscall(SYS_execve, file, argv, env);
  if (error != -ENOEXEC) {
    return error;
  }
  script_argv[1] = const_cast<char*>(file);
  return raw::syscall(SYS_execve, script_argv[0], script_argv, env);
}

// execvp(3)'s search and its errors (EACCES if some candidate was not
// executable, else the last error that ends the search), errno left alone:
// returns -errno.
long exec_searching(char* const* argv, char* const* env, char** script_argv)
{
  const char* name = argv[0];
  if (*name == '\0') {
    return -ENOENT;
  }
  if (__builtin_strchr(name, '/') != nullptr) {
    return exec_file(name, argv, env, script_argv);
  }
  if (__builtin_strlen(name) > NAME_MAX) {
    return -ENAMETOOLONG;
  }
  char candidate[PATH_MAX];
  bool denied = false;
  long error = -ENOENT;
  const bool stopped = for_each_on_path(name, search_path(env), candidate, [&](const char* file) {
    error = exec_file(file, argv, env, script_argv);
    denied = denied || error == -EACCES;
    // What execvp passes over: a candidate missing, or not executable.
    return error != -EACCES && error != -ENOENT && error != -ESTALE && error != -ENOTDIR &&
           error != -ENODEV && error != -ETIMEDOUT;
  });
  return !stopped && denied ? -EACCES : error;
}

// In the command's process, while the supervisor writes the running record:
// change directory, look the program up on PATH, put the output on stdout
// and stderr and close every other descriptor; then wait for "go" and exec,
// so that nothing but the exec is left after the record is durable. It
// shares the supervisor's memory (MemorySharingChild): raw system calls
// only, nothing allocated or written but its own stack.
[[noreturn]] void exec_command(const CommandImage& image, int go_fd, int error_fd)
{
  reset_child_signals(ProcessGroup::own);
  const long chdir_error = raw::syscall(SYS_chdir, image.cwd.c_str());
  char* const* argv = image.argv.get();
  char* const* env = image.env.get();
  char program[PATH_MAX];
  const bool found = chdir_error == 0 && find_on_path(argv[0], search_path(env), program);
  const int output =
    image.held_output_dir >= 0
      ? open_held_output(image.held_output_dir, image.held_output_name.c_str(), image.output_fd)
      : image.output_fd;
  raw::dup2(output, 1);
  raw::dup2(output, 2);
  raw::syscall(SYS_umask, image.caller_umask);
  // The supervisor's descriptors go now (among them a queued wait's inotify
  // instance): the go pipe stays until the exec closes it.
  close_descriptors_except({go_fd, error_fd, image.start_notice_fd});
  char go = 0;
  raw::syscall_restarting(SYS_read, go_fd, &go, 1);
  if (go != 'g') {
    if (image.start_notice_fd >= 0) {
      raw::write_all(image.start_notice_fd, "x", 1); // not started after all
    }
    raw::exit(127);
  }
  const auto fail = [&](ExecStage stage, long error) {
    const ExecFailure failure{stage, static_cast<int>(-error)};
    raw::write_all(error_fd, &failure, sizeof(failure));
    if (image.start_notice_fd >= 0) {
      raw::write_all(image.start_notice_fd, "x", 1);
    }
    raw::exit(failure.error == ENOENT || failure.error == ENOTDIR ? 127 : 126);
  };
  if (chdir_error != 0) {
    fail(ExecStage::chdir, chdir_error);
  }
  if (found) {
    raw::syscall(SYS_execve, program, argv, env);
  }
  // What was found failed (or nothing was): the search again, with
  // execvp's rules (EACCES, ENOEXEC and the rest), so that the outcome is
  // execvp's whatever the look-up above concluded.
  fail(ExecStage::exec, exec_searching(argv, env, image.script_argv.data()));
  raw::exit(127);
}

std::string describe(const LaunchRequest& request, const ExecFailure& failure)
{
  if (failure.stage == ExecStage::chdir) {
    return "cannot change to directory " + request.record.cwd + ": " + std::strerror(failure.error);
  }
  return "cannot execute " + request.argv.front() + ": " + std::strerror(failure.error);
}

// The argv of /bin/sh running the program as a script, as execvp does when
// the kernel cannot execute it: the program's path goes in at [1].
std::vector<char*> script_arguments(char* const* argv)
{
  static char shell[] = "/bin/sh";
  std::vector<char*> arguments{shell, nullptr};
  for (char* const* arg = argv + 1; *arg != nullptr; ++arg) {
    arguments.push_back(*arg);
  }
  arguments.push_back(nullptr);
  return arguments;
}

std::vector<std::string> task_environment(const LaunchRequest& request, const std::string& dir,
                                          int attempt)
{
  auto additions = own_binary_entries();
  additions.insert(additions.end(), request.env_additions.begin(), request.env_additions.end());
  additions.push_back("BGTASK_ID=" + request.record.id);
  additions.push_back("BGTASK_DIR=" + dir);
  additions.push_back("BGTASK_ATTEMPT=" + std::to_string(attempt));
  return merged_environment(additions);
}

} // namespace

CommandImage::CommandImage(const LaunchRequest& request, const std::string& dir_path, int attempt,
                           int output_fd_, mode_t caller_umask_)
  : argv(request.argv),
    env(task_environment(request, dir_path, attempt)),
    script_argv(script_arguments(argv.get())),
    cwd(request.record.cwd),
    output_fd(output_fd_),
    caller_umask(caller_umask_)
{
}

PendingCommand::PendingCommand(const CommandImage& image)
{
  UniqueFd go_read;
  UniqueFd error_write;
  if (!make_pipe(go_read, m_go) || !make_pipe(m_errors, error_write)) {
    throw_system("cannot create a pipe", errno);
  }
  m_start = Start{&image, go_read.get(), error_write.get(), m_go.get(), m_errors.get()};
  m_process.emplace(&PendingCommand::run_process, &m_start);
  ::setpgid(pid(), pid());
}

int PendingCommand::run_process(void* argument)
{
  const auto& start = *static_cast<const Start*>(argument);
  // The supervisor's ends: a copy of the go pipe's write end here would
  // keep the command waiting after the supervisor died.
  raw::syscall(SYS_close, start.go_write);
  raw::syscall(SYS_close, start.errors_read);
  exec_command(*start.image, start.go_read, start.error_write);
}

void PendingCommand::release()
{
  static_cast<void>(write_all(m_go.get(), "g", 1));
  m_go.close();
}

void PendingCommand::release_stack_once_started()
{
  pollfd errors{m_errors.get(), 0, 0};
  if (m_process && ::poll(&errors, 1, 0) == 1 && (errors.revents & POLLHUP) != 0) {
    m_process->release_stack();
  }
}

std::optional<PendingCommand::Failure> PendingCommand::exec_failure(const LaunchRequest& request)
{
  ExecFailure failure{};
  ssize_t got = 0;
  while ((got = ::read(m_errors.get(), &failure, sizeof(failure))) < 0 && errno == EINTR) {
  }
  m_errors.close();
  if (got != static_cast<ssize_t>(sizeof(failure))) {
    return std::nullopt;
  }
  // The code the command's process exited with (exec_command).
  const int code = failure.error == ENOENT || failure.error == ENOTDIR ? 127 : 126;
  return Failure{code, describe(request, failure)};
}

} // namespace bgtask
