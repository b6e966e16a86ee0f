#pragma once

#include <bgtask/util/unique_fd.hpp>

#include <boost/json/object.hpp>

#include <mutex>
#include <string>
#include <sys/types.h>

namespace bgtask {
class TaskDir;
}

namespace bgtask::mcp {

// The process that starts tasks for the MCP server. A task's supervisor is
// the process that starts it, carried on after a fork; a fork from a
// process whose other threads may hold locks (the server serves requests
// on threads) could leave the supervisor a lock nobody releases. So the
// server forks this process first, before any thread, and it stays
// single-threaded: it reads `start` arguments from a socket, starts the
// task as the `start` tool does, and answers with the result.
class Launcher
{
public:
  // Forks the launcher; call before the process starts any thread.
  explicit Launcher(const TaskDir& dir);
  // Closes the socket, which ends the launcher, and reaps it.
  ~Launcher();
  Launcher(const Launcher&) = delete;
  Launcher& operator=(const Launcher&) = delete;

  // Starts a task with the `start` tool's arguments; returns the tool's
  // result. Throws ToolArgumentError or Error as the tool does, and
  // Error(failure) if the launcher is gone. One start at a time.
  boost::json::object start(const boost::json::object& args);

private:
  UniqueFd m_socket;
  pid_t m_pid = -1;
  std::string m_buffer; // read past the last answer
  std::mutex m_mutex;
};

} // namespace bgtask::mcp
