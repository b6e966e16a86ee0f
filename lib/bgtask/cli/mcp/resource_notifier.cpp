#include <bgtask/cli/mcp/json_rpc.hpp>
#include <bgtask/cli/mcp/resource_notifier.hpp>
#include <bgtask/cli/mcp/task_resources.hpp>
#include <bgtask/core/task_state.hpp>
#include <bgtask/exec/event_follow.hpp>
#include <bgtask/exec/executors.hpp>
#include <bgtask/exec/task_watcher.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/util/error.hpp>

#include <cerrno>
#include <cstdint>
#include <sys/eventfd.h>
#include <unistd.h>
#include <vector>

namespace bgtask::mcp {

namespace {

constexpr Milliseconds k_safety_poll{5000};

void drain(int fd)
{
  char buffer[4096];
  while (::read(fd, buffer, sizeof buffer) > 0) {
  }
}

} // namespace

ResourceNotifier::ResourceNotifier(const TaskDir& dir, RpcStream& stream)
  : m_dir(dir),
    m_stream(stream),
    m_wake(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK))
{
  if (!m_wake) {
    throw_system("cannot make an eventfd", errno);
  }
}

ResourceNotifier::~ResourceNotifier()
{
  m_stop = true;
  wake();
  if (m_thread.joinable()) {
    m_thread.join();
  }
}

void ResourceNotifier::wake()
{
  const std::uint64_t one = 1;
  static_cast<void>(::write(m_wake.get(), &one, sizeof one));
}

void ResourceNotifier::subscribe(const std::string& id)
{
  std::set<std::string> changed;
  {
    const std::lock_guard<std::mutex> lock(m_mutex);
    if (!m_reader) {
      // Placed at the end now, so that what is appended after this
      // subscription is answered, whenever the thread reads it.
      m_reader.emplace(m_dir, EventLogReader::From::end);
      static_cast<void>(m_reader->read());
      m_subscribed.insert(id);
      m_thread = std::thread([this] { run(); });
      return;
    }
    changed = read_changes(); // what came before this subscription is not its news
    m_subscribed.insert(id);
  }
  send(changed);
  wake();
}

void ResourceNotifier::unsubscribe(const std::string& id)
{
  const std::lock_guard<std::mutex> lock(m_mutex);
  m_subscribed.erase(id);
}

std::set<std::string> ResourceNotifier::read_changes()
{
  std::set<std::string> changed;
  const EventRead read = m_reader->read();
  if (read.gap) {
    changed = m_subscribed; // the log was made anew: anything may have changed
  }
  for (const LoggedEvent& logged : read.events) {
    if (m_subscribed.contains(logged.event.task)) {
      changed.insert(logged.event.task);
      if (logged.event.type == "task.cleaned") {
        m_subscribed.erase(logged.event.task); // gone: nothing more will change
      }
    }
  }
  return changed;
}

void ResourceNotifier::send(const std::set<std::string>& changed)
{
  for (const std::string& id : changed) {
    m_stream.send_notification("notifications/resources/updated", {{"uri", task_uri(id)}});
  }
}

void ResourceNotifier::notify_new_events()
{
  std::set<std::string> changed;
  {
    const std::lock_guard<std::mutex> lock(m_mutex);
    changed = read_changes();
  }
  send(changed);
}

void ResourceNotifier::run()
{
  TaskWatcher watcher(m_dir, WatcherOptions{WatchOutput::no, k_safety_poll, WatchEvents::none});
  const UniqueFd inotify = watch_event_log(m_dir);
  bool log_changed = false;
  if (inotify) {
    watcher.watch_fd(inotify.get(), [&] {
      drain(inotify.get());
      return log_changed = true;
    });
  }
  watcher.watch_fd(m_wake.get(), [&] {
    drain(m_wake.get());
    return log_changed = true; // a new subscription: look at the log again
  });
  while (!m_stop) {
    std::vector<TaskRecord> open;
    try {
      notify_new_events();
      std::set<std::string> subscribed;
      {
        const std::lock_guard<std::mutex> lock(m_mutex);
        subscribed = m_subscribed;
      }
      for (const std::string& id : subscribed) {
        LoadedRecord loaded = load_record(m_dir, id);
        if (loaded.status == LoadStatus::ok && !is_final(loaded.record.state)) {
          open.push_back(std::move(loaded.record));
        }
      }
    } catch (const std::exception&) {
      open.clear(); // unreadable meanwhile: look again on the next wake
    }
    for (const TaskRecord& record : open) {
      watcher.watch_task(record);
    }
    log_changed = false;
    watcher.wait(std::nullopt);
    if (!log_changed && !m_stop) {
      try {
        reconcile_records(m_dir, open); // a supervisor died (its `lost` comes as an event)
      } catch (const std::exception&) {
      }
    }
  }
}

} // namespace bgtask::mcp
