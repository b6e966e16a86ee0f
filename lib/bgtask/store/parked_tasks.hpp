#pragma once

#include <bgtask/util/result.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

namespace bgtask {

class TaskDir;

// `.parked` in a task directory: one file per parked task (a queued task
// that has no process, queue_admission.hpp), named `ID` while it waits for
// its --after tasks and `ID+QUEUE` while it waits in QUEUE's line, so that
// the tasks a hand-off may admit are found by one readdir, in order,
// without reading a record. A file holds the launch context of its task;
// the tasks of one start share it (hard links).

// One parked task's file.
struct ParkedEntry
{
  std::string id;
  std::optional<std::string> queue; // set: waiting in this queue's line
  std::string file_name() const;
};

// What a parked task's supervisor needs that its record does not say: the
// umask and environment of `start`, and the values of --env.
struct LaunchContext
{
  mode_t umask = 022;
  std::vector<std::string> environment;   // NAME=VALUE, as `start` had it
  std::vector<std::string> env_additions; // --env NAME=VALUE
};

// Writes `context` once and links it under each entry's name, then fsyncs
// the folder (and the task directory when the folder is new): durable on
// return. Throws Error(failure); then no entry of `entries` is left.
void park_tasks(const TaskDir& dir, const std::vector<ParkedEntry>& entries,
                const LaunchContext& context);

// Writes one task's file with no sync at all, for a group start whose one
// syncfs makes it durable with the records (create_records). Throws
// Error(failure).
void park_task_unsynced(const TaskDir& dir, const ParkedEntry& entry, const LaunchContext& context);

// The parked tasks' files, sorted by ID; empty at once where the folder is
// missing (one failed open: what every invocation pays when nothing waits).
std::vector<ParkedEntry> scan_parked_tasks(const TaskDir& dir);

// Removes from `ids` (sorted) each task whose file places it in the line
// of a queue other than `queue`: a task's queue never changes, so a
// selection of `queue` need not read its record.
void erase_parked_in_other_queues(const TaskDir& dir, std::string_view queue,
                                  std::vector<std::string>& ids);

// Whether an invocation's look for lost hand-offs is due: none was noted in
// the last `interval` (the time of `.parked/.looked`, set now when one is
// due). True where nothing is parked or the note cannot be kept.
bool lost_handoff_look_due(const TaskDir& dir, std::chrono::milliseconds interval);

// The launch context of a parked task; a failure says why it is unusable.
Result<LaunchContext> read_parked_context(const TaskDir& dir, const ParkedEntry& entry);

// Moves a parked task into `queue`'s line (its --after tasks succeeded).
// False if its file is gone.
bool move_to_queue_line(const TaskDir& dir, std::string_view id, std::string_view queue);

// Removes a task's file, whichever name it has (best effort: a file left
// behind names a task that is no longer parked, which the next hand-off
// removes on sight).
void unpark_task(const TaskDir& dir, std::string_view id, const std::optional<std::string>& queue);

// The encoding of a launch context in its file, and its strict reading.
std::string encode_launch_context(const LaunchContext& context);
Result<LaunchContext> decode_launch_context(std::string_view text);

} // namespace bgtask
