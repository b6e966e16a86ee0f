#include <bgtask/proc/caller_umask.hpp>
#include <bgtask/proc/client_process.hpp>
#include <bgtask/proc/environment.hpp>
#include <bgtask/proc/spawn.hpp>
#include <bgtask/util/unique_fd.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace bgtask {

namespace {

constexpr std::size_t k_max_captured = 256 * 1024 * 1024;

// Reads what is available; false at end of file (or on error).
bool read_some(int fd, std::string& into)
{
  char buffer[65536];
  const ssize_t n = ::read(fd, buffer, sizeof(buffer));
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) {
    return true;
  }
  if (n <= 0) {
    return false;
  }
  into.append(buffer, static_cast<std::size_t>(n));
  return true;
}

} // namespace

ClientResult run_client(const ClientCall& call)
{
  ClientResult result;
  if (call.argv.empty()) {
    result.error = "no program given";
    return result;
  }
  // stdin is a socket so that a client exiting early makes send() fail with
  // EPIPE instead of raising SIGPIPE in bgtask.
  int in_pair[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in_pair) != 0) {
    result.error = std::string("cannot create a socket pair: ") + std::strerror(errno);
    return result;
  }
  UniqueFd in_parent(in_pair[0]);
  UniqueFd in_child(in_pair[1]);
  UniqueFd out_read, out_write, err_read, err_write;
  if (!make_pipe(out_read, out_write) || !make_pipe(err_read, err_write)) {
    result.error = std::string("cannot create a pipe: ") + std::strerror(errno);
    return result;
  }
  SpawnRequest spawn;
  spawn.argv = call.argv;
  spawn.env = merged_environment(call.env_additions);
  spawn.stdin_fd = in_child.get();
  spawn.stdout_fd = out_write.get();
  spawn.stderr_fd = err_write.get();
  spawn.umask = caller_umask();
  const Spawned spawned = spawn_program(spawn);
  if (spawned.pid < 0) {
    result.end = ClientEnd::not_started;
    result.error = "cannot run " + call.argv.front() + ": " + std::strerror(spawned.error);
    return result;
  }
  const pid_t pid = spawned.pid;
  in_child.close();
  out_write.close();
  err_write.close();

  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + call.timeout;
  std::size_t written = 0;
  if (call.input.empty()) {
    in_parent.close();
  }
  ::fcntl(in_parent.get(), F_SETFL, O_NONBLOCK);
  ::fcntl(out_read.get(), F_SETFL, O_NONBLOCK);
  ::fcntl(err_read.get(), F_SETFL, O_NONBLOCK);
  bool killed = false;
  while (out_read || err_read) {
    const auto left = std::chrono::ceil<Milliseconds>(deadline - Clock::now()).count();
    if (left <= 0 || result.out.size() > k_max_captured || result.err.size() > k_max_captured) {
      ::kill(pid, SIGKILL);
      killed = true;
      break;
    }
    std::vector<pollfd> fds;
    if (out_read) {
      fds.push_back(pollfd{out_read.get(), POLLIN, 0});
    }
    if (err_read) {
      fds.push_back(pollfd{err_read.get(), POLLIN, 0});
    }
    if (in_parent) {
      fds.push_back(pollfd{in_parent.get(), POLLOUT, 0});
    }
    if (::poll(fds.data(), fds.size(), static_cast<int>(std::min<std::int64_t>(left, 60000))) < 0 &&
        errno != EINTR) {
      ::kill(pid, SIGKILL);
      killed = true;
      break;
    }
    for (const auto& p : fds) {
      if (p.revents == 0) {
        continue;
      }
      if (p.fd == out_read.get() && !read_some(p.fd, result.out)) {
        out_read.close();
      } else if (p.fd == err_read.get() && !read_some(p.fd, result.err)) {
        err_read.close();
      } else if (p.fd == in_parent.get()) {
        const ssize_t n =
          ::send(p.fd, call.input.data() + written, call.input.size() - written, MSG_NOSIGNAL);
        if (n > 0) {
          written += static_cast<std::size_t>(n);
        }
        if ((n < 0 && errno != EINTR && errno != EAGAIN) || written == call.input.size()) {
          in_parent.close();
        }
      }
    }
  }
  in_parent.close();
  // Both pipes at end of file: the client has (nearly) exited. Wait for it
  // until the deadline, then kill it.
  int status = 0;
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, killed ? 0 : WNOHANG);
    if (done == pid || (done < 0 && errno != EINTR)) {
      break;
    }
    if (done == 0) {
      if (Clock::now() >= deadline) {
        ::kill(pid, SIGKILL);
        killed = true;
      } else {
        ::usleep(2000);
      }
    }
  }
  if (killed) {
    result.end = ClientEnd::timed_out;
    result.error = call.argv.front() + " did not answer within " + format_duration(call.timeout);
    return result;
  }
  result.end = ClientEnd::exited;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

std::string client_message(const ClientResult& result)
{
  if (result.end != ClientEnd::exited) {
    return result.error;
  }
  for (const std::string* text : {&result.err, &result.out}) {
    std::size_t at = 0;
    while (at < text->size()) {
      auto end = text->find('\n', at);
      if (end == std::string::npos) {
        end = text->size();
      }
      std::string line = text->substr(at, end - at);
      while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) {
        line.pop_back();
      }
      if (!line.empty()) {
        return line;
      }
      at = end + 1;
    }
  }
  return "exited with status " + std::to_string(result.exit_code);
}

} // namespace bgtask
