#include <bgtask/exec/task_watcher.hpp>
#include <bgtask/proc/fd_holder.hpp>
#include <bgtask/proc/interrupts.hpp>
#include <bgtask/proc/process_info.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/store/task_files.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <poll.h>
#include <sys/inotify.h>
#include <unistd.h>

namespace bgtask {

namespace {

constexpr Milliseconds k_safety_poll{5000};
constexpr Milliseconds k_max_backoff{1000};

// The process whose exit means the record is about to change: the
// supervisor, or the command once the supervisor is gone. Verified after
// opening, so a reused pid never stands in for it.
UniqueFd open_watched_process(const TaskRecord& record)
{
  if (is_final(record.state)) {
    return UniqueFd();
  }
  if (record.owner && !record.unsupervised) {
    UniqueFd fd = open_pidfd(record.owner->pid);
    if (fd && is_same_process(record.owner->pid, record.owner->start_time)) {
      return fd;
    }
    return UniqueFd();
  }
  if (record.child) {
    UniqueFd fd = open_pidfd(record.child->pid);
    if (fd && is_same_process(record.child->pid, record.child->start_time)) {
      return fd;
    }
  }
  return UniqueFd();
}

// Reads all pending events; true if one concerns a record or output file
// (or events were lost). Opening and closing files, as readers do, is not a change.
bool drain_relevant(int fd)
{
  alignas(inotify_event) std::array<char, 16384> buffer{};
  bool relevant = false;
  ssize_t n = 0;
  while ((n = ::read(fd, buffer.data(), buffer.size())) > 0) {
    for (ssize_t at = 0; at < n;) {
      const auto* event = reinterpret_cast<const inotify_event*>(buffer.data() + at);
      const std::string_view name(event->len > 0 ? event->name : "");
      const auto file = parse_task_file_name(name.substr(0, name.find('\0')));
      if ((event->mask & IN_Q_OVERFLOW) != 0 ||
          (file && (file->kind == TaskFileKind::status || file->kind == TaskFileKind::output))) {
        relevant = true;
      }
      at += static_cast<ssize_t>(sizeof(inotify_event) + event->len);
    }
  }
  return relevant;
}

} // namespace

TaskWatcher::TaskWatcher(const TaskDir& dir, WatchOutput watch_output)
  : m_inotify(::inotify_init1(IN_CLOEXEC | IN_NONBLOCK))
{
  if (!m_inotify) {
    return;
  }
  std::uint32_t mask = IN_MOVED_TO | IN_DELETE | IN_ONLYDIR | IN_EXCL_UNLINK;
  if (watch_output == WatchOutput::yes) {
    mask |= IN_MODIFY;
  }
  const std::string path = "/proc/self/fd/" + std::to_string(dir.fd());
  if (::inotify_add_watch(m_inotify.get(), path.c_str(), mask) < 0) {
    m_inotify.close();
    return;
  }
  hold_until_exit(m_inotify.get()); // closing the watch must not delay our exit
}

void TaskWatcher::wait_for_change(const std::vector<TaskRecord>& tasks,
                                  std::optional<Milliseconds> limit)
{
  if (m_reader_gone || (m_interrupts && interrupt_signal() != 0)) {
    return;
  }
  std::vector<UniqueFd> processes;
  std::vector<pollfd> fds;
  if (m_inotify) {
    fds.push_back(pollfd{m_inotify.get(), POLLIN, 0});
  }
  // Neither is ever drained: once ready, every later wait returns at once.
  if (m_interrupts && interrupt_fd() >= 0) {
    fds.push_back(pollfd{interrupt_fd(), POLLIN, 0});
  }
  const std::size_t reader_at = fds.size();
  if (m_reader >= 0) {
    fds.push_back(pollfd{m_reader, 0, 0}); // POLLERR and POLLHUP are always reported
  }
  // An unfinished task whose process is already gone as the watch starts
  // (it died between the caller's reconciliation and here) has nothing to
  // wake us: poll with the backoff instead of waiting for the safety poll.
  bool blind = false;
  for (const auto& task : tasks) {
    if (auto fd = open_watched_process(task)) {
      fds.push_back(pollfd{fd.get(), POLLIN, 0});
      processes.push_back(std::move(fd));
    } else if (!is_final(task.state)) {
      blind = true;
    }
  }
  const bool polling = !m_inotify || blind;
  Milliseconds wait = polling ? m_backoff : k_safety_poll;
  m_backoff = polling ? std::min(m_backoff * 2, k_max_backoff) : Milliseconds(50);
  if (limit) {
    wait = std::min(wait, std::max(*limit, Milliseconds(0)));
  }
  using Clock = std::chrono::steady_clock;
  const auto until = Clock::now() + wait;
  for (;;) {
    const auto left = std::chrono::ceil<Milliseconds>(until - Clock::now());
    const int ready =
      ::poll(fds.data(), fds.size(), static_cast<int>(std::max<std::int64_t>(left.count(), 0)));
    if (m_reader >= 0 && (fds[reader_at].revents & (POLLERR | POLLHUP)) != 0) {
      m_reader_gone = true;
    } else if (m_reader >= 0 && (fds[reader_at].revents & POLLNVAL) != 0) {
      m_reader = -1; // not open: nothing to watch (and poll would never sleep)
      return;
    }
    if (ready <= 0 || !m_inotify || (fds.front().revents & POLLIN) == 0 || ready > 1 ||
        drain_relevant(m_inotify.get())) {
      return;
    }
  }
}

} // namespace bgtask
