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
#include <utility>

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

namespace {

using Clock = std::chrono::steady_clock;

// A started client: its pid and our ends of its stdin, stdout and stderr.
struct RunningClient
{
  pid_t pid = -1;
  UniqueFd in;  // closed when there is nothing (more) to write
  UniqueFd out; // closed at end of file
  UniqueFd err;
};

// Spawns `call` with its stdio on fresh pipes; an empty reason on success.
std::string start_client(const ClientCall& call, RunningClient& client)
{
  // stdin is a socket so that a client exiting early makes send() fail with
  // EPIPE instead of raising SIGPIPE in bgtask.
  int in_pair[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in_pair) != 0) {
    return std::string("cannot create a socket pair: ") + std::strerror(errno);
  }
  client.in = UniqueFd(in_pair[0]);
  UniqueFd in_child(in_pair[1]);
  UniqueFd out_write, err_write;
  if (!make_pipe(client.out, out_write) || !make_pipe(client.err, err_write)) {
    return std::string("cannot create a pipe: ") + std::strerror(errno);
  }
  SpawnRequest spawn;
  spawn.argv = call.argv;
  spawn.env = merged_environment(call.env_additions);
  spawn.stdin_fd = in_child.get();
  spawn.stdout_fd = out_write.get();
  spawn.stderr_fd = err_write.get();
  spawn.umask = caller_umask();
  spawn.group = ProcessGroup::own; // killed as a whole at the deadline (reap)
  const Spawned spawned = spawn_program(spawn);
  if (spawned.pid < 0) {
    return "cannot run " + call.argv.front() + ": " + std::strerror(spawned.error);
  }
  client.pid = spawned.pid;
  if (call.input.empty()) {
    client.in.close();
  }
  for (const UniqueFd* fd : {&client.in, &client.out, &client.err}) {
    if (*fd) {
      ::fcntl(fd->get(), F_SETFL, O_NONBLOCK);
    }
  }
  return {};
}

// Sends the next part of `input`; closes `in` once all of it is sent or the
// client stops reading.
void send_some(UniqueFd& in, const std::string& input, std::size_t& written)
{
  const ssize_t n = ::send(in.get(), input.data() + written, input.size() - written, MSG_NOSIGNAL);
  if (n > 0) {
    written += static_cast<std::size_t>(n);
  }
  if ((n < 0 && errno != EINTR && errno != EAGAIN) || written == input.size()) {
    in.close();
  }
}

// Feeds stdin and collects stdout and stderr until both reach end of file.
// Returns false when it had to kill the client (deadline, capture cap, poll
// failure).
bool exchange(const ClientCall& call, RunningClient& client, Clock::time_point deadline,
              ClientResult& result)
{
  std::size_t written = 0;
  while (client.out || client.err) {
    const auto left = std::chrono::ceil<Milliseconds>(deadline - Clock::now()).count();
    if (left <= 0 || result.out.size() > k_max_captured || result.err.size() > k_max_captured) {
      return false;
    }
    std::vector<pollfd> fds;
    if (client.out) {
      fds.push_back(pollfd{client.out.get(), POLLIN, 0});
    }
    if (client.err) {
      fds.push_back(pollfd{client.err.get(), POLLIN, 0});
    }
    if (client.in) {
      fds.push_back(pollfd{client.in.get(), POLLOUT, 0});
    }
    if (::poll(fds.data(), fds.size(), static_cast<int>(std::min<std::int64_t>(left, 60000))) < 0 &&
        errno != EINTR) {
      return false;
    }
    for (const auto& p : fds) {
      if (p.revents == 0) {
        continue;
      }
      if (p.fd == client.out.get() && !read_some(p.fd, result.out)) {
        client.out.close();
      } else if (p.fd == client.err.get() && !read_some(p.fd, result.err)) {
        client.err.close();
      } else if (p.fd == client.in.get()) {
        send_some(client.in, call.input, written);
      }
    }
  }
  return true;
}

// Reaps the client: waits for it until the deadline, then kills it (at once
// when `kill_now`), with every process of its group: what it started dies
// with it. Returns its wait status, and whether it was killed.
std::pair<int, bool> reap(pid_t pid, Clock::time_point deadline, bool kill_now)
{
  bool killed = kill_now;
  if (killed) {
    ::kill(-pid, SIGKILL); // its own group (start_client), not yet reaped
  }
  int status = 0;
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, killed ? 0 : WNOHANG);
    if (done == pid || (done < 0 && errno != EINTR)) {
      break;
    }
    if (done == 0) {
      if (Clock::now() >= deadline) {
        ::kill(-pid, SIGKILL);
        killed = true;
      } else {
        ::usleep(2000);
      }
    }
  }
  return {status, killed};
}

} // namespace

ClientResult run_client(const ClientCall& call)
{
  ClientResult result;
  if (call.argv.empty()) {
    result.error = "no program given";
    return result;
  }
  RunningClient client;
  if (std::string why = start_client(call, client); !why.empty()) {
    result.end = ClientEnd::not_started;
    result.error = std::move(why);
    return result;
  }
  const auto deadline = Clock::now() + call.timeout;
  const bool finished = exchange(call, client, deadline, result);
  client.in.close();
  // Both pipes at end of file: the client has (nearly) exited.
  const auto [status, killed] = reap(client.pid, deadline, !finished);
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
