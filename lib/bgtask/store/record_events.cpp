#include <bgtask/store/atomic_file.hpp>
#include <bgtask/store/event_log.hpp>
#include <bgtask/store/output_file.hpp>
#include <bgtask/store/record_events.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/store/task_files.hpp>
#include <bgtask/store/task_lock.hpp>
#include <bgtask/util/agent_text.hpp>
#include <bgtask/util/error.hpp>

#include <algorithm>
#include <fcntl.h>
#include <iostream>
#include <set>
#include <sys/stat.h>

namespace bgtask {

namespace {

// The most of a task's last output lines a task.exited event carries.
constexpr std::size_t k_tail_lines = 3;
constexpr std::size_t k_tail_bytes = 400;

// The events of this thread that wait for a DirSyncBatch's directory sync.
thread_local std::vector<StreamEvent> t_waiting;

// The last lines of the task's output, as text, at most k_tail_bytes.
std::string output_tail(const TaskDir& dir, const std::string& id)
{
  struct stat st
  {
  };
  if (::fstatat(dir.fd(), output_file_name(id).c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
      S_ISREG(st.st_mode) && st.st_size == 0) {
    return {}; // empty (a task that never ran): nothing to open
  }
  try {
    const UniqueFd fd = open_output_file(dir, id);
    if (!fd) {
      return {};
    }
    std::string text = to_agent_text(read_last_lines(fd.get(), k_tail_lines), Controls::strip).text;
    if (text.size() > k_tail_bytes) {
      std::size_t cut = text.size() - k_tail_bytes;
      while (cut < text.size() && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) {
        ++cut; // not inside a UTF-8 sequence
      }
      text.erase(0, cut);
    }
    return text;
  } catch (const Error&) {
    return {};
  }
}

void add_output_tails(const TaskDir& dir, std::vector<StreamEvent>& events)
{
  for (StreamEvent& event : events) {
    if (event.type == "task.exited") {
      event.data["output_tail"] = output_tail(dir, event.task);
    }
  }
}

void append_or_warn(const TaskDir& dir, const std::vector<StreamEvent>& events)
{
  try {
    append_events(dir, events);
  } catch (const Error& e) {
    std::cerr << "bgtask: warning: " << e.what() << '\n';
  }
}

} // namespace

void log_events(const TaskDir& dir, const std::vector<StreamEvent>& events)
{
  if (events.empty()) {
    return;
  }
  const bool first = t_waiting.empty();
  t_waiting.insert(t_waiting.end(), events.begin(), events.end());
  if (!first) {
    return; // a flush is already waiting for the batch's sync
  }
  const auto flush = [&dir] {
    const auto waiting = std::move(t_waiting);
    t_waiting.clear();
    append_or_warn(dir, waiting);
  };
  if (!DirSyncBatch::after_sync(dir, flush)) {
    flush();
  }
}

void log_record_change(const TaskDir& dir, const TaskRecord* before, const TaskRecord& after)
{
  auto events = events_of_change(before, after);
  add_output_tails(dir, events);
  log_events(dir, events);
}

void log_record_changes(const TaskDir& dir, std::span<const TaskRecord* const> before,
                        std::span<const TaskRecord* const> after)
{
  std::vector<StreamEvent> events;
  for (std::size_t i = 0; i < after.size(); ++i) {
    auto more = events_of_change(before[i], *after[i]);
    std::move(more.begin(), more.end(), std::back_inserter(events));
  }
  add_output_tails(dir, events);
  if (events.empty()) {
    return;
  }
  try {
    append_events(dir, events, EventSync::always);
  } catch (const Error& e) {
    std::cerr << "bgtask: warning: " << e.what() << '\n';
  }
}

std::size_t append_missing_final_events(const TaskDir& dir, const std::vector<TaskRecord>& records)
{
  const FinalEventIndex index = index_final_events(dir);
  if (!index.oldest || !index.end) {
    return 0; // no log yet: these tasks ended before it
  }
  std::set<std::string> logged(index.ids.begin(), index.ids.end());
  EventLogReader newer(dir, *index.end);
  std::size_t backfilled = 0;
  for (const TaskRecord& record : records) {
    if (!is_final(record.state) || logged.contains(record.id) ||
        record.finished_at.value_or(record.created_at) < *index.oldest) {
      continue;
    }
    auto lock = TaskLock::open_existing(dir, record.id);
    if (!lock || lock->read_only()) {
      continue;
    }
    // Under the update lock no writer of this task is between its save and its append.
    UpdateLockGuard guard(*lock);
    for (const LoggedEvent& e : newer.read().events) {
      if (e.event.type == "task.exited") {
        logged.insert(e.event.task);
      }
    }
    if (logged.contains(record.id)) {
      continue;
    }
    auto events = final_events(record);
    add_output_tails(dir, events);
    append_events(dir, events);
    logged.insert(record.id);
    ++backfilled;
  }
  return backfilled;
}

} // namespace bgtask
