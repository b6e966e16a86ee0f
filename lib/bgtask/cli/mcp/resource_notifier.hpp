#pragma once

#include <bgtask/store/event_log.hpp>
#include <bgtask/util/unique_fd.hpp>

#include <atomic>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>

namespace bgtask {
class TaskDir;
}

namespace bgtask::mcp {

class RpcStream;

// Sends notifications/resources/updated for the tasks a client subscribed
// to (resources/subscribe on bgtask://task/ID), each time the event stream
// shows a change of the task's record. One thread, started by the first
// subscription, asleep on an inotify watch of the event log and on the
// supervisors of the subscribed tasks (one that dies is reconciled, so its
// `lost` comes as an event), with a safety poll of 5 s.
class ResourceNotifier
{
public:
  ResourceNotifier(const TaskDir& dir, RpcStream& stream);
  // Stops the thread, if one was started, and joins it.
  ~ResourceNotifier();
  ResourceNotifier(const ResourceNotifier&) = delete;
  ResourceNotifier& operator=(const ResourceNotifier&) = delete;

  // Reports the changes of task `id` that the stream shows from now on.
  void subscribe(const std::string& id);
  // Stops reporting them (nothing if `id` was not subscribed).
  void unsubscribe(const std::string& id);

private:
  void run();
  // Reads what the log gained (under m_mutex): the subscribed tasks it names.
  std::set<std::string> read_changes();
  // Notifies each of `changed` once.
  void send(const std::set<std::string>& changed);
  void notify_new_events();
  void wake();

  const TaskDir& m_dir;
  RpcStream& m_stream;
  std::mutex m_mutex;
  std::set<std::string> m_subscribed;
  std::optional<EventLogReader> m_reader; // placed at the first subscription
  UniqueFd m_wake;                        // an eventfd: subscriptions changed, or stop
  std::atomic<bool> m_stop{false};
  std::thread m_thread;
};

} // namespace bgtask::mcp
