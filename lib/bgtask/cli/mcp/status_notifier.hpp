#pragma once

#include <bgtask/core/task_record.hpp>
#include <bgtask/util/unique_fd.hpp>

#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <thread>

namespace bgtask {
class TaskDir;
}

namespace bgtask::mcp {

class RpcStream;

// Sends notifications/tasks/status while the server runs, each time a
// task it was told of changes MCP status, until the task has ended: one
// thread, asleep on the task watcher (records replaced, supervisors gone).
class StatusNotifier
{
public:
  StatusNotifier(const TaskDir& dir, RpcStream& stream);
  // Stops the thread and joins it.
  ~StatusNotifier();
  StatusNotifier(const StatusNotifier&) = delete;
  StatusNotifier& operator=(const StatusNotifier&) = delete;

  // Reports `record`'s status changes from now on (unless it has ended).
  void track(const TaskRecord& record);

private:
  void run();
  void notify_changes();
  void wake();

  const TaskDir& m_dir;
  RpcStream& m_stream;
  std::mutex m_mutex;
  std::map<std::string, std::string> m_sent; // task ID -> the status last reported
  UniqueFd m_wake;                           // an eventfd: tracked tasks changed, or stop
  std::atomic<bool> m_stop{false};
  std::thread m_thread;
};

} // namespace bgtask::mcp
