#pragma once

#include <bgtask/core/event_line.hpp>
#include <bgtask/core/task_record.hpp>
#include <bgtask/store/event_log.hpp>
#include <bgtask/util/duration.hpp>
#include <bgtask/util/unique_fd.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace bgtask {

class TaskDir;

// Which events and tasks a reader of the stream asked for (`bgtask events`
// ID... --name --queue --type); empty parts select everything.
struct EventSelection
{
  std::vector<std::string> ids; // full IDs
  std::optional<std::string> name;
  std::optional<std::string> queue;
  std::vector<std::string> types;

  bool selects_task(const TaskRecord& record) const;
  bool selects(const LoggedEvent& logged) const;
};

// A descriptor a follower also sleeps on: when it is readable, `handle`
// runs (between reads of the log); returning true ends the follow
// (FollowEnd::interrupted). `top` reads its keyboard so.
struct FollowWake
{
  int fd = -1;
  std::function<bool()> handle;
};

struct FollowOptions
{
  bool follow = false;     // go on reading as the log grows
  bool until_idle = false; // end once no selected task is unfinished
  bool until_any = false;  // end after a read that handed over a selected event
  std::optional<Milliseconds> limit;
  int stop_fd = -1; // ends the wait once readable (FollowEnd::interrupted)
  std::vector<FollowWake> wakes;
};

enum class FollowEnd { done, idle, gap, gave_up, interrupted, reader_gone };

// What the reader is handed: each selected event, in order, and, after each
// read, the place reached (to keep in a cursor file).
struct FollowSink
{
  std::function<void(const LoggedEvent&)> event;
  std::function<void(const EventCursor&)> reached;
};

// An inotify instance watching the event log's folder (made if missing)
// for appends and new segments; invalid where inotify cannot be had.
UniqueFd watch_event_log(const TaskDir& dir);

// Reads the log from where `reader` stands, hands the selected events to
// `sink` and, with FollowOptions::follow, sleeps on an inotify watch of the
// log's folder and on the supervisors of unfinished selected tasks (a dead
// one is reconciled, so its `lost` comes as an event), with a safety poll
// of 5 s. Before it ends idle, the final events the log lacks for selected
// tasks are backfilled and read. On a gap, `gap` tells where to go on.
// Throws Error.
FollowEnd follow_events(const TaskDir& dir, EventLogReader& reader, const EventSelection& selection,
                        const FollowOptions& options, const FollowSink& sink, EventGap& gap);

} // namespace bgtask
