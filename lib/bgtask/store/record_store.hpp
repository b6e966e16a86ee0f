#pragma once

#include <bgtask/core/task_record.hpp>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bgtask {

class TaskDir;

enum class LoadStatus { ok, missing, corrupt };

// What reading one `ID.status.json` gave.
struct LoadedRecord
{
  std::string id;
  LoadStatus status = LoadStatus::missing;
  TaskRecord record;  // valid when status is ok
  std::string reason; // why it is corrupt
};

// Reads and validates the record of `id` (which must be a full, valid ID):
// read_owned_file (owned_file.hpp: no link, a regular file of the
// directory's owner) of at most 1 MiB, strictly parsed, and its `id` must
// match. Throws Error(failure) when the process runs short of descriptors
// or memory (EMFILE, ENFILE, ENOMEM): that says nothing of the record.
LoadedRecord load_record(const TaskDir& dir, std::string_view id);

// Bumps `record.generation` and replaces the record atomically and durably
// (atomic_file.hpp). Throws Error(failure).
void save_record(const TaskDir& dir, TaskRecord& record);

// For a start that failed: removes the output and lock files of `id` unless
// a record names the task (then they are the record's), so that a failed
// start leaves nothing behind. Errors are ignored.
void remove_unrecorded_task_files(const TaskDir& dir, std::string_view id);

// The IDs of all records in the directory, oldest first.
std::vector<std::string> scan_task_ids(const TaskDir& dir);

// Which records a scan keeps.
using RecordFilter = std::function<bool(const TaskRecord&)>;

// The records of the directory (scan_task_ids, load_record) that `keep`
// accepts, every one without it, oldest first. Missing and corrupt records
// are left out (`bgtask status ID` explains a corrupt one). Not reconciled:
// load_unfinished_records (executors.hpp) does that too.
std::vector<TaskRecord> load_records(const TaskDir& dir, const RecordFilter& keep = nullptr);

// The same over the records of `ids` only, in their order.
std::vector<TaskRecord> load_records(const TaskDir& dir, const std::vector<std::string>& ids,
                                     const RecordFilter& keep);

// How many threads read `count` records (list and cleanup are bound by
// opening and parsing thousands of files): one per 2000, at least one, at
// most four and no more than the cores.
std::size_t record_reader_count(std::size_t count);

// Calls read(reader, index) once for every index below `count`, on
// record_reader_count(count) threads numbered from 0, 256 indices at a
// time; rethrows what a call threw once every thread stopped.
void read_records_in_parallel(
  std::size_t count, const std::function<void(std::size_t reader, std::size_t index)>& read);

// True once the task was removed under whoever asks: the directory itself
// was deleted (no links left) or the task's record (`status_name`, from
// status_file_name) was. (A record is replaced by rename, never absent while
// its task lives.) Allocates nothing: running supervisors ask it every few
// seconds.
bool task_removed(const TaskDir& dir, const std::string& status_name);

// The greatest ID that has a record or a lock file in the directory (a task
// being started has only its lock), or empty: what a new ID must sort
// after (make_task_id). Throws Error(failure) if the directory cannot be read.
std::string newest_task_id(const TaskDir& dir);

// The outcome of looking a task reference up: the full ID, or why not.
struct TaskLookup
{
  std::optional<std::string> id;
  std::string problem; // "no task ... in DIR", "ambiguous task ID ... matches ..."
};

// Resolves a task reference (task_id.hpp: a full ID or a unique prefix of at
// least 4 characters, in either case; `@`: the newest task whose recorded
// working directory is the current directory; `@last`: the newest task) to a
// full ID. A full ID is checked by opening its record, never by scanning.
// Throws Error(usage) for a malformed reference.
TaskLookup look_up_task_id(const TaskDir& dir, std::string_view reference);

// look_up_task_id that throws Error(usage) with the problem.
std::string resolve_task_id(const TaskDir& dir, std::string_view id_or_prefix);

// resolve_task_id for each of `prefixes`, dropping repeats; keeps the order.
std::vector<std::string> resolve_task_ids(const TaskDir& dir,
                                          const std::vector<std::string>& prefixes);

} // namespace bgtask
