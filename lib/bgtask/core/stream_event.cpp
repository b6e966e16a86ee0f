#include <bgtask/core/exit_status.hpp>
#include <bgtask/core/output_cursor.hpp>
#include <bgtask/core/stream_event.hpp>
#include <bgtask/util/utf8.hpp>

#include <algorithm>

namespace json = boost::json;

namespace bgtask {

namespace {

StreamEvent event_of(std::string type, const TaskRecord& record, TimePoint time)
{
  StreamEvent event;
  event.type = std::move(type);
  event.task = record.id;
  if (record.name) {
    event.name = to_valid_utf8(*record.name);
  }
  event.queue = record.queue;
  event.time = time;
  return event;
}

json::value optional_int(const std::optional<int>& value)
{
  return value ? json::value(*value) : json::value(nullptr);
}

StreamEvent exited_event(const TaskRecord& record)
{
  StreamEvent event = event_of("task.exited", record, record.finished_at.value_or(now()));
  event.data["state"] = std::string(to_string(record.state));
  event.data["exit_code"] = optional_int(record.exit_code);
  event.data["signal"] = optional_int(record.signal);
  event.data["wait_status"] = optional_int(wait_status_of(record));
  event.data["duration_s"] =
    record.duration_s ? json::value(*record.duration_s) : json::value(nullptr);
  event.data["output_bytes"] = record.output.bytes;
  event.data["output_cursor"] = encode_output_cursor(record.id, record.output.bytes);
  event.data["error"] = record.error ? json::value(to_valid_utf8(*record.error)) : nullptr;
  return event;
}

StreamEvent progress_event(const TaskRecord& record)
{
  const Progress& progress = *record.progress;
  StreamEvent event = event_of("task.progress", record, progress.updated_at);
  if (progress.percent) {
    event.data["percent"] = *progress.percent;
  }
  if (progress.current) {
    event.data["current"] = *progress.current;
  }
  if (progress.total) {
    event.data["total"] = *progress.total;
  }
  if (progress.message) {
    event.data["message"] = to_valid_utf8(*progress.message);
  }
  return event;
}

StreamEvent queued_event(const TaskRecord& record)
{
  StreamEvent event = event_of("task.queued", record, record.created_at);
  if (record.waiting_for) {
    event.data["waiting_for"] = *record.waiting_for == WaitingFor::after ? "after" : "slot";
  }
  return event;
}

StreamEvent started_event(const TaskRecord& record)
{
  StreamEvent event = event_of("task.started", record, record.started_at.value_or(now()));
  event.data["attempt"] = static_cast<std::int64_t>(record.attempts.size() + 1);
  return event;
}

bool progress_changed(const TaskRecord& before, const TaskRecord& after)
{
  if (!after.progress) {
    return false;
  }
  return !before.progress || before.progress->updated_at != after.progress->updated_at ||
         before.progress->message != after.progress->message ||
         before.progress->percent != after.progress->percent ||
         before.progress->current != after.progress->current;
}

// The events of a record that stays unfinished.
void add_unfinished_changes(const TaskRecord& before, const TaskRecord& after,
                            std::vector<StreamEvent>& events)
{
  if (after.state == TaskState::queued && before.state != TaskState::queued) {
    events.push_back(queued_event(after));
  }
  if (after.state == TaskState::running &&
      (before.state != TaskState::running || before.started_at != after.started_at)) {
    events.push_back(started_event(after));
  }
  if (after.retry_at && before.retry_at != after.retry_at) {
    StreamEvent event = event_of("task.retrying", after, now());
    event.data["retry_at"] = format_timestamp(*after.retry_at);
    event.data["attempts"] = static_cast<std::int64_t>(after.attempts.size());
    events.push_back(std::move(event));
  }
  if (after.pause.paused != before.pause.paused) {
    events.push_back(event_of(after.pause.paused ? "task.paused" : "task.resumed", after,
                              after.pause.since.value_or(now())));
  }
  if (progress_changed(before, after)) {
    events.push_back(progress_event(after));
  }
}

} // namespace

std::vector<StreamEvent> final_events(const TaskRecord& record)
{
  std::vector<StreamEvent> events;
  if (record.state == TaskState::lost) {
    StreamEvent lost = event_of("task.lost", record, record.finished_at.value_or(now()));
    lost.data["error"] = record.error ? json::value(to_valid_utf8(*record.error)) : nullptr;
    events.push_back(std::move(lost));
  }
  events.push_back(exited_event(record));
  return events;
}

std::vector<StreamEvent> events_of_change(const TaskRecord* before, const TaskRecord& after)
{
  std::vector<StreamEvent> events;
  if (before == nullptr) {
    events.push_back(event_of("task.created", after, after.created_at));
    if (after.state == TaskState::queued) {
      events.push_back(queued_event(after));
    } else if (after.state == TaskState::running) {
      events.push_back(started_event(after));
    }
  } else if (is_final(before->state)) {
    return events; // a final record never turns into another state
  } else if (!is_final(after.state)) {
    add_unfinished_changes(*before, after, events);
  }
  if (is_final(after.state)) {
    auto last = final_events(after);
    std::move(last.begin(), last.end(), std::back_inserter(events));
  }
  return events;
}

StreamEvent ready_event(const TaskRecord& record, json::object data)
{
  StreamEvent event = event_of("task.ready", record, now());
  event.data = std::move(data);
  return event;
}

StreamEvent cleaned_event(const TaskRecord& record)
{
  StreamEvent event = event_of("task.cleaned", record, now());
  event.data["state"] = std::string(to_string(record.state));
  return event;
}

bool is_final_event(std::string_view type)
{
  return type == "task.exited" || type == "task.lost" || type == "task.cleaned";
}

bool is_stream_event_type(std::string_view type)
{
  return std::find(k_stream_event_types.begin(), k_stream_event_types.end(), type) !=
         k_stream_event_types.end();
}

} // namespace bgtask
