#pragma once

#include <bgtask/core/task_record.hpp>
#include <bgtask/util/timestamp.hpp>

#include <boost/json/object.hpp>

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bgtask {

// Every event type of the task directory's stream (`bgtask events --type`):
// the one list of their names. `stream.gap` is never stored: a reader says
// with it that events it was asked for are no longer kept.
inline constexpr std::array<std::string_view, 13> k_stream_event_types{
  "task.created", "task.queued",   "task.started",  "task.ready",  "task.progress",
  "task.paused",  "task.resumed",  "task.retrying", "task.exited", "task.lost",
  "task.cleaned", "queue.drained", "stream.gap"};

// One event of the stream, before the log numbers it.
struct StreamEvent
{
  std::string type;                 // one of k_stream_event_types
  std::string task;                 // the task's ID; empty for queue.* and stream.*
  std::optional<std::string> name;  // the task's name, if it has one
  std::optional<std::string> queue; // the task's queue, if it has one
  TimePoint time;
  boost::json::object data; // what the type says (task.exited: the outcome)
};

// The events one saved change of a record stands for, in order: `before`
// is the record as it was (nullptr for a task's first record). Empty when
// the change is none the stream shows (a reconciliation note, say).
std::vector<StreamEvent> events_of_change(const TaskRecord* before, const TaskRecord& after);

// The event of a `wait --until-*` whose condition was met (task.ready):
// `data` says which condition and what matched.
StreamEvent ready_event(const TaskRecord& record, boost::json::object data);

// The event of a task removed by `cleanup`.
StreamEvent cleaned_event(const TaskRecord& record);

// The events of a final record (task.lost where it applies, then
// task.exited), for a log that lacks them.
std::vector<StreamEvent> final_events(const TaskRecord& record);

// True for the types made durable before their writer goes on (exited,
// lost, cleaned): the others may ride on the next sync.
bool is_final_event(std::string_view type);

// True for a name of k_stream_event_types.
bool is_stream_event_type(std::string_view type);

} // namespace bgtask
