#include <bgtask/exec/local/command_launch.hpp>
#include <bgtask/exec/local/output_holders.hpp>
#include <bgtask/proc/environment.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/fd_io.hpp>

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstring>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

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

// Where execvp would find `name` on `path`: the first `DIR/name` that is an
// executable regular file, written to `out` (PATH_MAX bytes); false if none
// is, or `name` has a slash (execvp then runs it as it is). Allocates
// nothing: it runs in the forked command.
bool find_on_path(const char* name, const char* path, char* out)
{
  const std::size_t name_length = __builtin_strlen(name);
  if (name_length == 0 || __builtin_strchr(name, '/') != nullptr) {
    return false;
  }
  for (const char* dir = path;; ++dir) {
    const char* end = __builtin_strchr(dir, ':');
    const std::size_t dir_length =
      end ? static_cast<std::size_t>(end - dir) : __builtin_strlen(dir);
    if (dir_length + 1 + name_length < PATH_MAX) {
      std::size_t at = 0;
      if (dir_length > 0) { // an empty entry is the current directory
        __builtin_memcpy(out, dir, dir_length);
        at = dir_length;
        out[at++] = '/';
      }
      __builtin_memcpy(out + at, name, name_length + 1);
      struct stat st
      {
      };
      if (::stat(out, &st) == 0 && S_ISREG(st.st_mode) && ::access(out, X_OK) == 0) {
        return true;
      }
    }
    if (end == nullptr) {
      return false;
    }
    dir = end;
  }
}

// In the command's process, while the supervisor writes the running record:
// change directory, look the program up on PATH, put the output on stdout
// and stderr and close every other descriptor; then wait for "go" and exec,
// so that nothing but the exec is left after the record is durable. Only
// async-signal-safe calls; never returns.
[[noreturn]] void exec_command(const CommandImage& image, int go_fd, int error_fd)
{
  reset_child_signals(ProcessGroup::own);
  const int chdir_error = ::chdir(image.cwd.c_str()) == 0 ? 0 : errno;
  char* const* argv = image.argv.get();
  char* const* env = image.env.get();
  char program[PATH_MAX];
  const bool found = chdir_error == 0 && find_on_path(argv[0], search_path(env), program);
  const int output =
    image.held_output_dir >= 0
      ? open_held_output(image.held_output_dir, image.held_output_name.c_str(), image.output_fd)
      : image.output_fd;
  ::dup2(output, 1);
  ::dup2(output, 2);
  ::umask(image.caller_umask);
  // The supervisor's descriptors go now (among them a queued wait's inotify
  // instance): the go pipe stays until the exec closes it.
  close_descriptors_except({go_fd, error_fd, image.start_notice_fd});
  char go = 0;
  while (::read(go_fd, &go, 1) < 0 && errno == EINTR) {
  }
  if (go != 'g') {
    if (image.start_notice_fd >= 0) {
      static_cast<void>(write_all(image.start_notice_fd, "x", 1)); // not started after all
    }
    ::_exit(127);
  }
  const auto fail = [&](ExecStage stage, int error) {
    const ExecFailure failure{stage, error};
    static_cast<void>(write_all(error_fd, &failure, sizeof(failure)));
    if (image.start_notice_fd >= 0) {
      static_cast<void>(write_all(image.start_notice_fd, "x", 1));
    }
    ::_exit(failure.error == ENOENT || failure.error == ENOTDIR ? 127 : 126);
  };
  if (chdir_error != 0) {
    fail(ExecStage::chdir, chdir_error);
  }
  if (found) {
    ::execve(program, argv, env);
  }
  // What was found failed (or nothing was): execvp searches `environ`'s
  // PATH again with its own rules (EACCES, ENOEXEC and the rest), so the
  // outcome is execvp's whatever the look-up above concluded.
  environ = const_cast<char**>(env);
  ::execvp(argv[0], argv);
  fail(ExecStage::exec, errno);
  ::_exit(127);
}

std::string describe(const LaunchRequest& request, const ExecFailure& failure)
{
  if (failure.stage == ExecStage::chdir) {
    return "cannot change to directory " + request.record.cwd + ": " + std::strerror(failure.error);
  }
  return "cannot execute " + request.argv.front() + ": " + std::strerror(failure.error);
}

std::vector<std::string> task_environment(const LaunchRequest& request, const std::string& dir,
                                          int attempt)
{
  auto additions = request.env_additions;
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
  m_pid = ::fork();
  if (m_pid == 0) {
    // The parent's ends: a copy of the go pipe's write end here would keep
    // the command waiting after the supervisor died.
    ::close(m_go.get());
    ::close(m_errors.get());
    exec_command(image, go_read.get(), error_write.get());
  }
  if (m_pid < 0) {
    throw_system("cannot fork", errno);
  }
  ::setpgid(m_pid, m_pid);
}

void PendingCommand::release()
{
  static_cast<void>(write_all(m_go.get(), "g", 1));
  m_go.close();
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
