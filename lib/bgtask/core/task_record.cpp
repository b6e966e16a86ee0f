#include <bgtask/core/task_record.hpp>

#include <algorithm>

namespace bgtask {

void add_event(TaskRecord& record, std::string kind, std::optional<std::string> message)
{
  auto& events = record.events;
  if (events.size() >= k_max_events) {
    auto victim = std::find_if(events.begin() + 1, events.end(),
                               [](const TaskEvent& e) { return e.kind == "progress"; });
    events.erase(victim != events.end() ? victim : events.begin() + 1);
  }
  events.push_back(TaskEvent{std::move(kind), now(), std::move(message)});
}

void finish_record(TaskRecord& record, TaskState state, std::optional<std::string> error)
{
  record.state = state;
  record.error = std::move(error);
  record.waiting_for.reset();
  record.finished_at = now();
  if (record.started_at) {
    record.duration_s = static_cast<double>(run_time(record).count()) / 1000.0;
  }
  add_event(record, "finished", std::string(to_string(state)));
  record.events.back().at = *record.finished_at; // one moment, not two reads of the clock
}

Milliseconds run_time(const TaskRecord& record)
{
  if (!record.started_at) {
    return Milliseconds(0);
  }
  if (record.started_clock) {
    if (const auto elapsed = monotonic_since(*record.started_clock)) {
      return *elapsed;
    }
  }
  const TimePoint end = record.finished_at.value_or(now());
  return std::max(Milliseconds(0), end - *record.started_at);
}

std::string outcome_text(const TaskRecord& record)
{
  std::string text(to_string(record.state));
  if (record.state == TaskState::failed && record.reason) {
    text += " (" + *record.reason + ")";
  } else if (record.state == TaskState::failed && record.signal) {
    text += " (signal " + std::to_string(*record.signal) + ")";
  } else if (record.state == TaskState::failed && record.exit_code) {
    text += " (exit " + std::to_string(*record.exit_code) + ")";
  }
  return text;
}

} // namespace bgtask
