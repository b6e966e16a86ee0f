#include <bgtask/exec/event_follow.hpp>
#include <bgtask/exec/executors.hpp>
#include <bgtask/exec/task_watcher.hpp>
#include <bgtask/store/cache_folder.hpp>
#include <bgtask/store/record_events.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/task_dir.hpp>

#include <algorithm>
#include <chrono>
#include <sys/inotify.h>
#include <unistd.h>

namespace bgtask {

namespace {

constexpr Milliseconds k_event_safety_poll{5000};
// The most supervisors watched through a pidfd; the others are looked at
// on the safety poll.
constexpr std::size_t k_max_watched_tasks = 64;

bool contains(const std::vector<std::string>& list, std::string_view value)
{
  return std::find(list.begin(), list.end(), value) != list.end();
}

} // namespace

UniqueFd watch_event_log(const TaskDir& dir)
{
  const UniqueFd folder = open_private_folder(dir, k_event_folder, CreateFolder::yes);
  UniqueFd inotify(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC));
  if (!folder || !inotify) {
    return {};
  }
  const std::string path = "/proc/self/fd/" + std::to_string(folder.get());
  if (::inotify_add_watch(inotify.get(), path.c_str(),
                          IN_MODIFY | IN_CREATE | IN_MOVED_TO | IN_DELETE | IN_ONLYDIR) < 0) {
    return {};
  }
  return inotify;
}

namespace {

void drain(int fd)
{
  char buffer[4096];
  while (::read(fd, buffer, sizeof buffer) > 0) {
  }
}

// The unfinished tasks the selection names, kept up to date from the events.
class OpenTasks
{
public:
  OpenTasks(const TaskDir& dir, const EventSelection& selection)
    : m_dir(dir),
      m_selection(selection)
  {
    m_tasks = load_unfinished_records(
      dir, [&](const TaskRecord& record) { return selection.selects_task(record); });
  }

  void note(const LoggedEvent& logged)
  {
    const StreamEvent& event = logged.event;
    if (event.task.empty()) {
      return;
    }
    std::erase_if(m_tasks, [&](const TaskRecord& r) { return r.id == event.task; });
    if (is_final_event(event.type)) {
      return;
    }
    auto loaded = load_record(m_dir, event.task);
    if (loaded.status == LoadStatus::ok && !is_final(loaded.record.state) &&
        m_selection.selects_task(loaded.record)) {
      m_tasks.push_back(std::move(loaded.record));
    }
  }

  // Reconciles them: a task whose supervisor died becomes final (its event follows).
  void reconcile()
  {
    reconcile_records(m_dir, m_tasks);
    std::erase_if(m_tasks, [](const TaskRecord& r) { return is_final(r.state); });
  }

  void watch(TaskWatcher& watcher) const
  {
    for (std::size_t i = 0; i < m_tasks.size() && i < k_max_watched_tasks; ++i) {
      watcher.watch_task(m_tasks[i]);
    }
  }

  bool empty() const { return m_tasks.empty(); }

private:
  const TaskDir& m_dir;
  const EventSelection& m_selection;
  std::vector<TaskRecord> m_tasks;
};

// Reads what is new; false on a gap. `handed` counts the selected events.
bool read_new(EventLogReader& reader, const EventSelection& selection, const FollowSink& sink,
              OpenTasks& open, EventGap& gap, bool first = false, std::size_t* handed = nullptr)
{
  EventRead read = reader.read();
  if (read.gap) {
    gap = *read.gap;
    return false;
  }
  for (const LoggedEvent& logged : read.events) {
    open.note(logged);
    if (selection.selects(logged)) {
      sink.event(logged);
      if (handed != nullptr) {
        ++*handed;
      }
    }
  }
  if (const auto position = reader.position(); position && (first || !read.events.empty())) {
    sink.reached(*position);
  }
  return true;
}

// Backfills the final events of the selected tasks, so that idle comes after them all.
void backfill_selected(const TaskDir& dir, const EventSelection& selection)
{
  append_missing_final_events(dir, load_records(dir, [&](const TaskRecord& record) {
                                return selection.selects_task(record);
                              }));
}

} // namespace

bool EventSelection::selects_task(const TaskRecord& record) const
{
  return (ids.empty() || contains(ids, record.id)) && (!name || record.name == name) &&
         (!queue || record.queue == queue);
}

bool EventSelection::selects(const LoggedEvent& logged) const
{
  const StreamEvent& event = logged.event;
  if (!ids.empty() && !contains(ids, event.task)) {
    return false;
  }
  return (!name || event.name == name) && (!queue || event.queue == queue) &&
         (types.empty() || contains(types, event.type));
}

FollowEnd follow_events(const TaskDir& dir, EventLogReader& reader, const EventSelection& selection,
                        const FollowOptions& options, const FollowSink& sink, EventGap& gap)
{
  OpenTasks open(dir, selection);
  const auto deadline =
    options.limit ? std::optional(std::chrono::steady_clock::now() + *options.limit) : std::nullopt;
  const UniqueFd inotify = options.follow ? watch_event_log(dir) : UniqueFd();
  TaskWatcher watcher(dir, WatcherOptions{WatchOutput::no, k_event_safety_poll, WatchEvents::none});
  bool log_changed = false;
  if (inotify) {
    watcher.watch_fd(inotify.get(), [&] {
      drain(inotify.get());
      log_changed = true;
      return true;
    });
  }
  bool stopped = false;
  for (const FollowWake& wake : options.wakes) {
    watcher.watch_fd(wake.fd, [&] { return stopped = wake.handle(); });
  }
  if (options.stop_fd >= 0) {
    watcher.watch_fd(options.stop_fd, [&] { return stopped = true; });
  } else {
    watcher.watch_interrupts();
    watcher.watch_reader(STDOUT_FILENO);
  }
  for (bool first = true;; first = false) {
    std::size_t handed = 0;
    if (!read_new(reader, selection, sink, open, gap, first, &handed)) {
      return FollowEnd::gap;
    }
    if (options.until_idle && open.empty()) {
      backfill_selected(dir, selection);
      return read_new(reader, selection, sink, open, gap) ? FollowEnd::idle : FollowEnd::gap;
    }
    if (!options.follow || (options.until_any && handed > 0)) {
      return FollowEnd::done;
    }
    std::optional<Milliseconds> left;
    if (deadline) {
      left = std::chrono::duration_cast<Milliseconds>(*deadline - std::chrono::steady_clock::now());
      if (left->count() <= 0) {
        return FollowEnd::gave_up;
      }
    }
    open.watch(watcher);
    log_changed = false;
    const Wake wake = watcher.wait(left);
    if (wake == Wake::limit) {
      return FollowEnd::gave_up;
    }
    if (wake == Wake::interrupted || stopped) {
      return watcher.reader_gone() ? FollowEnd::reader_gone : FollowEnd::interrupted;
    }
    if (!log_changed) {
      open.reconcile(); // a supervisor died, or the safety poll
    }
  }
}

} // namespace bgtask
