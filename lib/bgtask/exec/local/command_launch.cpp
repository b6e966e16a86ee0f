#include <bgtask/exec/local/command_launch.hpp>
#include <bgtask/exec/local/output_holders.hpp>
#include <bgtask/proc/environment.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/fd_io.hpp>
#include <bgtask/util/shell_quote.hpp>

#include <cerrno>
#include <cstring>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>

namespace bgtask {

namespace {

enum class ExecStage : int { chdir = 1, exec = 2 };

struct ExecFailure
{
  ExecStage stage;
  int error;
};

// The exit code of a command that could not be started: 127 if it was
// not found, else 126 (as a shell's).
int exit_code_for(int error)
{
  return error == ENOENT || error == ENOTDIR ? 127 : 126;
}

// In the command's process, while the supervisor writes the running record:
// change directory, put the output on stdout and stderr and close every
// other descriptor; then wait for "go" and exec, so that nothing but the
// exec is left after the record is durable. A forked child: nothing
// allocated, async-signal-safe calls only.
[[noreturn]] void exec_command(const CommandImage& image, int go_fd, int error_fd)
{
  reset_child_signals(ProcessGroup::own);
  const int chdir_error = ::chdir(image.cwd.c_str()) == 0 ? 0 : errno;
  const int output =
    image.held_output_dir >= 0
      ? open_held_output(image.held_output_dir, image.held_output_name.c_str(), image.output_fd)
      : image.output_fd;
  ::dup2(output, 1);
  ::dup2(image.error_fd >= 0 ? image.error_fd : output, 2);
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
  ExecFailure failure{ExecStage::chdir, chdir_error};
  if (chdir_error == 0) {
    // PATH is looked up in the command's own environment (--env PATH=...).
    environ = const_cast<char**>(image.env.get());
    ::execvpe(image.argv.get()[0], image.argv.get(), image.env.get());
    failure = ExecFailure{ExecStage::exec, errno};
  }
  static_cast<void>(write_all(error_fd, &failure, sizeof(failure)));
  if (image.start_notice_fd >= 0) {
    static_cast<void>(write_all(image.start_notice_fd, "x", 1));
  }
  ::_exit(exit_code_for(failure.error));
}

// The PATH a command name was looked up in: its own environment's (what
// task_environment gives it), or nullopt if it has none.
std::optional<std::string> lookup_path(const LaunchRequest& request)
{
  auto additions = own_binary_entries();
  additions.insert(additions.end(), request.env_additions.begin(), request.env_additions.end());
  for (const auto& entry : merged_environment(additions)) {
    if (entry.starts_with("PATH=")) {
      return entry.substr(5);
    }
  }
  return std::nullopt;
}

std::string describe(const LaunchRequest& request, const ExecFailure& failure)
{
  if (failure.stage == ExecStage::chdir) {
    return "cannot change to directory " + request.record.cwd + ": " + std::strerror(failure.error);
  }
  const std::string& program = request.argv.front();
  std::string text = "cannot execute " + program + ": " + std::strerror(failure.error);
  if (failure.error != ENOENT) {
    return text;
  }
  // `start -- 'make && make install'`: one word that is a shell command line.
  if (request.argv.size() == 1 && program.find_first_of(" \t|&;<>$`") != std::string::npos) {
    text +=
      " (the command is one word; for a shell command line use -c " + shell_quote(program) + ")";
  } else if (program.find('/') == std::string::npos) {
    // A name looked up in PATH: cron's, for one, is short.
    const auto path = lookup_path(request);
    text += path ? " (not found in PATH=" + *path + ")" : " (not found: PATH is not set)";
  }
  return text;
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
  if (m_pid < 0) {
    throw_system("cannot fork", errno);
  }
  if (m_pid == 0) {
    // The supervisor's ends: a copy of the go pipe's write end here would
    // keep the command waiting after the supervisor died.
    ::close(m_go.get());
    ::close(m_errors.get());
    exec_command(image, go_read.get(), error_write.get());
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
  return Failure{exit_code_for(failure.error), describe(request, failure)};
}

} // namespace bgtask
