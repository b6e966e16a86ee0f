#include <bgtask/cli/mcp/json_rpc.hpp>
#include <bgtask/cli/mcp/mcp_tasks.hpp>
#include <bgtask/cli/mcp/status_notifier.hpp>
#include <bgtask/core/task_state.hpp>
#include <bgtask/exec/task_waiter.hpp>
#include <bgtask/exec/task_watcher.hpp>
#include <bgtask/util/error.hpp>

#include <cerrno>
#include <cstdint>
#include <sys/eventfd.h>
#include <unistd.h>
#include <vector>

namespace bgtask::mcp {

namespace {

constexpr Milliseconds k_recheck{5000};

} // namespace

StatusNotifier::StatusNotifier(const TaskDir& dir, RpcStream& stream)
  : m_dir(dir),
    m_stream(stream),
    m_wake(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK))
{
  if (!m_wake) {
    throw_system("cannot make an eventfd", errno);
  }
  m_thread = std::thread([this] { run(); });
}

StatusNotifier::~StatusNotifier()
{
  m_stop = true;
  wake();
  m_thread.join();
}

void StatusNotifier::wake()
{
  const std::uint64_t one = 1;
  static_cast<void>(::write(m_wake.get(), &one, sizeof one));
}

void StatusNotifier::track(const TaskRecord& record)
{
  {
    const std::lock_guard<std::mutex> lock(m_mutex);
    if (is_final(record.state) || m_sent.contains(record.id)) {
      return;
    }
    m_sent[record.id] = std::string(mcp_task(record).at("status").as_string());
  }
  wake();
}

// Reads the tracked tasks' records; reports those whose status changed
// and forgets those that ended (or were removed).
void StatusNotifier::notify_changes()
{
  std::map<std::string, std::string> sent;
  {
    const std::lock_guard<std::mutex> lock(m_mutex);
    sent = m_sent;
  }
  for (const auto& [id, status] : sent) {
    std::optional<TaskRecord> record;
    try {
      record = load_current_record(m_dir, id);
    } catch (const std::exception&) {
      // removed or unreadable: nothing more to report
    }
    const boost::json::object task = record ? mcp_task(*record) : boost::json::object{};
    if (record && task.at("status").as_string() != status) {
      m_stream.send_notification("notifications/tasks/status", task);
    }
    const std::lock_guard<std::mutex> lock(m_mutex);
    if (!record || is_final(record->state)) {
      m_sent.erase(id);
    } else {
      m_sent[id] = std::string(task.at("status").as_string());
    }
  }
}

void StatusNotifier::run()
{
  TaskWatcher watcher(m_dir, WatcherOptions{});
  watcher.watch_fd(m_wake.get(), [this] {
    std::uint64_t count = 0;
    static_cast<void>(::read(m_wake.get(), &count, sizeof count));
    return true;
  });
  while (!m_stop) {
    try {
      notify_changes();
      std::vector<TaskRecord> watched;
      {
        const std::lock_guard<std::mutex> lock(m_mutex);
        for (const auto& entry : m_sent) {
          watched.push_back(load_current_record(m_dir, entry.first));
        }
      }
      watcher.wait_for_change(watched, k_recheck);
    } catch (const std::exception&) {
      watcher.wait_for_change({}, k_recheck); // a record went away meanwhile: look again later
    }
  }
}

} // namespace bgtask::mcp
