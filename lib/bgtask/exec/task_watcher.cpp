#include <bgtask/core/queue_admission.hpp>
#include <bgtask/exec/task_watcher.hpp>
#include <bgtask/proc/interrupts.hpp>
#include <bgtask/proc/process_info.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/store/task_files.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <poll.h>
#include <sys/inotify.h>
#include <unistd.h>
#include <utility>

namespace bgtask {

namespace {

constexpr Milliseconds k_min_backoff{50};
constexpr Milliseconds k_max_backoff{1000};

// A record, output or outcome file changed, or events were lost. Opening and closing
// files, as readers do, is not a change.
bool default_filter(std::string_view name, std::uint32_t mask)
{
  const auto file = parse_task_file_name(name);
  return (mask & IN_Q_OVERFLOW) != 0 ||
         (file && (file->kind == TaskFileKind::status || file->kind == TaskFileKind::output ||
                   file->kind == TaskFileKind::outcome));
}

UniqueFd open_verified(pid_t pid, std::uint64_t start_time)
{
  UniqueFd fd = open_pidfd(pid);
  if (fd && is_same_process(pid, start_time)) {
    return fd;
  }
  return UniqueFd();
}

} // namespace

UniqueFd open_watched_process(const TaskRecord& record)
{
  if (is_final(record.state)) {
    return UniqueFd();
  }
  if (record.owner && !record.unsupervised) {
    return open_verified(record.owner->pid, record.owner->start_time);
  }
  if (record.child) {
    return open_verified(record.child->pid, record.child->start_time);
  }
  return UniqueFd();
}

TaskWatcher::TaskWatcher(const TaskDir& dir, WatchOutput watch_output)
  : TaskWatcher(dir, WatcherOptions{watch_output})
{
}

TaskWatcher::TaskWatcher(const TaskDir& dir, const WatcherOptions& options)
  : m_dir_fd(dir.fd()),
    m_mask(IN_MOVED_TO | IN_DELETE | IN_DELETE_SELF | IN_ONLYDIR | IN_EXCL_UNLINK |
           (options.output == WatchOutput::yes ? IN_MODIFY : 0U)),
    m_events(options.events),
    m_safety_poll(options.safety_poll),
    m_filter(default_filter)
{
  if (m_events == Events::directory) {
    open_inotify();
  }
}

void TaskWatcher::open_inotify()
{
  m_inotify = UniqueFd(::inotify_init1(IN_CLOEXEC | IN_NONBLOCK));
  if (!m_inotify) {
    return;
  }
  const std::string path = "/proc/self/fd/" + std::to_string(m_dir_fd);
  m_watch = ::inotify_add_watch(m_inotify.get(), path.c_str(), m_mask);
  if (m_watch < 0) {
    m_inotify.close();
    return;
  }
}

UniqueFd TaskWatcher::release_events()
{
  m_events = Events::none;
  if (m_inotify) {
    ::inotify_rm_watch(m_inotify.get(), m_watch);
  }
  return std::move(m_inotify);
}

bool TaskWatcher::watch_events(Events events)
{
  if (events == m_events) {
    return false;
  }
  m_events = events;
  if (events == Events::none) {
    m_inotify.close();
    return false;
  }
  open_inotify();
  return true;
}

void TaskWatcher::watch_fd(int fd, std::function<bool()> ready)
{
  m_extra.push_back(ExtraFd{fd, std::move(ready)});
}

bool TaskWatcher::watch_task(const TaskRecord& task)
{
  if (auto fd = open_watched_process(task)) {
    m_processes.push_back(std::move(fd));
    return true;
  }
  if (is_final(task.state) || is_parked(task)) {
    return true; // a parked task's only change is its record's: an event
  }
  // An unfinished task whose process is already gone as the watch starts
  // (it died between the caller's reconciliation and here) has nothing to
  // wake us: poll with the backoff instead of waiting for the safety poll.
  m_blind = true;
  return false;
}

Wake TaskWatcher::wait_for_change(const std::vector<TaskRecord>& tasks,
                                  std::optional<Milliseconds> limit)
{
  for (const auto& task : tasks) {
    watch_task(task);
  }
  return wait(limit);
}

// Reads all pending events; true if the filter calls one a change (every
// event is shown to it).
bool TaskWatcher::drain_relevant()
{
  alignas(inotify_event) std::array<char, 16384> buffer{};
  bool relevant = false;
  ssize_t n = 0;
  while ((n = ::read(m_inotify.get(), buffer.data(), buffer.size())) > 0) {
    for (ssize_t at = 0; at < n;) {
      const auto* event = reinterpret_cast<const inotify_event*>(buffer.data() + at);
      const std::string_view name(event->len > 0 ? event->name : "");
      relevant = m_filter(name.substr(0, name.find('\0')), event->mask) || relevant;
      at += static_cast<ssize_t>(sizeof(inotify_event) + event->len);
    }
  }
  return relevant;
}

Wake TaskWatcher::wait(std::optional<Milliseconds> limit)
{
  const std::vector<UniqueFd> processes = std::exchange(m_processes, {});
  const bool blind = std::exchange(m_blind, false);
  if (m_reader_gone || (m_interrupts && interrupt_signal() != 0)) {
    return Wake::interrupted;
  }
  std::vector<pollfd> fds;
  const auto add = [&](int fd, short events) {
    fds.push_back(pollfd{fd, events, 0});
    return fds.size() - 1;
  };
  const std::size_t inotify_at = m_inotify ? add(m_inotify.get(), POLLIN) : SIZE_MAX;
  // Neither is ever drained: once ready, every later wait returns at once.
  const std::size_t interrupt_at =
    m_interrupts && interrupt_fd() >= 0 ? add(interrupt_fd(), POLLIN) : SIZE_MAX;
  // POLLERR and POLLHUP are always reported.
  const std::size_t reader_at = m_reader >= 0 ? add(m_reader, 0) : SIZE_MAX;
  const std::size_t extra_at = fds.size();
  for (const auto& extra : m_extra) {
    add(extra.fd, POLLIN);
  }
  const std::size_t processes_at = fds.size();
  for (const auto& fd : processes) {
    add(fd.get(), POLLIN);
  }
  const bool polling = (!m_inotify && m_events == Events::directory) || blind;
  Milliseconds wait = polling ? m_backoff : m_safety_poll;
  m_backoff = polling ? std::min(m_backoff * 2, k_max_backoff) : k_min_backoff;
  Wake timeout = polling ? Wake::polled : Wake::safety_poll;
  if (limit && *limit < wait) {
    wait = std::max(*limit, Milliseconds(0));
    timeout = Wake::limit;
  }
  using Clock = std::chrono::steady_clock;
  const auto until = Clock::now() + wait;
  for (;;) {
    const auto left = std::chrono::ceil<Milliseconds>(until - Clock::now());
    const int ready =
      ::poll(fds.data(), fds.size(), static_cast<int>(std::max<std::int64_t>(left.count(), 0)));
    if (ready == 0) {
      return timeout;
    }
    if (ready < 0) {
      return Wake::changed; // EINTR: the caller looks again
    }
    if (reader_at != SIZE_MAX) {
      if ((fds[reader_at].revents & (POLLERR | POLLHUP)) != 0) {
        m_reader_gone = true;
        return Wake::interrupted;
      }
      if ((fds[reader_at].revents & POLLNVAL) != 0) {
        m_reader = -1; // not open: nothing to watch (and poll would never sleep)
        return Wake::changed;
      }
    }
    if (interrupt_at != SIZE_MAX && fds[interrupt_at].revents != 0) {
      return Wake::interrupted;
    }
    for (std::size_t i = 0; i < m_extra.size(); ++i) {
      const short revents = fds[extra_at + i].revents;
      if (revents != 0 && ((revents & POLLIN) == 0 || m_extra[i].ready())) {
        return Wake::changed;
      }
    }
    if (std::any_of(fds.begin() + static_cast<std::ptrdiff_t>(processes_at), fds.end(),
                    [](const pollfd& p) { return p.revents != 0; })) {
      return Wake::changed;
    }
    if (inotify_at != SIZE_MAX && fds[inotify_at].revents != 0 &&
        ((fds[inotify_at].revents & POLLIN) == 0 || drain_relevant())) {
      return Wake::changed;
    }
  }
}

} // namespace bgtask
