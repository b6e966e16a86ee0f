#include <bgtask/cli/mcp/launcher.hpp>
#include <bgtask/cli/mcp/tools.hpp>
#include <bgtask/cli/mcp/tools_impl.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/fd_io.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <cerrno>
#include <fcntl.h>
#include <optional>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

namespace bgtask::mcp {

namespace json = boost::json;

namespace {

constexpr int k_reap_every_ms = 1000;

// The next newline-terminated message on `fd`, or nullopt at its end.
std::optional<std::string> read_message(int fd, std::string& buffer)
{
  for (;;) {
    if (const auto end = buffer.find('\n'); end != std::string::npos) {
      std::string line = buffer.substr(0, end);
      buffer.erase(0, end + 1);
      return line;
    }
    char block[4096];
    const ssize_t n = ::read(fd, block, sizeof block);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return std::nullopt;
    }
    buffer.append(block, static_cast<std::size_t>(n));
  }
}

// The answer to one start request.
json::object launch(const TaskDir& dir, const std::string& request)
{
  try {
    return {{"result", tool_start(dir, json::parse(request).as_object())}};
  } catch (const ToolArgumentError& e) {
    return {{"argument_error", e.message}};
  } catch (const Error& e) {
    return {{"error", e.what()}};
  } catch (const std::exception& e) {
    return {{"error", std::string("bgtask: ") + e.what()}};
  }
}

// The launcher's life: requests answered until the server closes its end.
// Its children are the supervisors it forked; it reaps them as they end.
[[noreturn]] void serve_launches(const TaskDir& dir, int socket)
{
  const int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null >= 0) { // the protocol's streams are the server's alone
    ::dup2(null, STDIN_FILENO);
    ::dup2(null, STDOUT_FILENO);
  }
  std::string buffer;
  for (;;) {
    pollfd p{socket, POLLIN, 0};
    const int ready = ::poll(&p, 1, k_reap_every_ms);
    while (::waitpid(-1, nullptr, WNOHANG) > 0) {
    }
    if (ready <= 0) {
      continue;
    }
    const auto request = read_message(socket, buffer);
    if (!request) {
      ::_exit(0);
    }
    const std::string answer = json::serialize(launch(dir, *request)) + "\n";
    if (write_all(socket, answer) != 0) {
      ::_exit(0);
    }
  }
}

} // namespace

Launcher::Launcher(const TaskDir& dir)
{
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    throw_system("cannot make the launcher's socket", errno);
  }
  UniqueFd ours(fds[0]);
  UniqueFd theirs(fds[1]);
  m_pid = ::fork();
  if (m_pid < 0) {
    throw_system("cannot fork the launcher", errno);
  }
  if (m_pid == 0) {
    static_cast<void>(ours.close());
    try {
      serve_launches(dir, theirs.get());
    } catch (...) {
      ::_exit(1); // never back into the server's code
    }
  }
  m_socket = std::move(ours);
}

Launcher::~Launcher()
{
  static_cast<void>(m_socket.close());
  if (m_pid > 0) {
    while (::waitpid(m_pid, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
}

json::object Launcher::start(const json::object& args)
{
  const std::lock_guard<std::mutex> lock(m_mutex);
  if (write_all(m_socket.get(), json::serialize(args) + "\n") != 0) {
    throw Error(ExitCode::failure, "bgtask: the MCP server's launcher is gone");
  }
  const auto line = read_message(m_socket.get(), m_buffer);
  if (!line) {
    throw Error(ExitCode::failure, "bgtask: the MCP server's launcher is gone");
  }
  json::object answer = json::parse(*line).as_object();
  if (const auto* result = answer.if_contains("result")) {
    return result->as_object();
  }
  if (const auto* message = answer.if_contains("argument_error")) {
    throw ToolArgumentError{std::string(message->as_string())};
  }
  throw Error(ExitCode::failure, std::string(answer.at("error").as_string()));
}

} // namespace bgtask::mcp
