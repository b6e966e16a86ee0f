#pragma once

#include <bgtask/core/task_record.hpp>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace bgtask {

class TaskDir;
class TaskLock;

// What a change function decided about the record it was given.
enum class Change { save, keep };

// How one record transaction ended.
enum class UpdateStatus {
  saved,   // the change was applied and the record is durable (in a DirSyncBatch: at its finish)
  kept,    // the change asked for nothing to be written
  gone,    // the task was removed (no record, or `ID.lock` unlinked): nothing written
  corrupt, // the record does not parse: nothing written
};

struct RecordUpdate
{
  UpdateStatus status = UpdateStatus::gone;
  TaskRecord record;  // the current record (saved or kept)
  std::string reason; // why it is corrupt
};

// Changes `record` in place and says whether to save it.
using RecordChange = std::function<Change(TaskRecord&)>;

// The one way to change an existing record: lock, re-read, change, save.
// Takes the update lock of `lock`, checks that `lock` is still the task's
// linked `ID.lock` and that its record still exists (a writer must never
// recreate a task that `cleanup` removed), re-reads the record, applies
// `change` and, if it asks, saves it durably (save_record). A corrupt
// record is left alone unless `replacement` is given (the writer's own copy,
// used in its place). Throws Error(failure) when the lock or the save fails;
// the record on disk is then unchanged. A saved change is then appended to
// the event log (record_events.hpp), still under the update lock.
RecordUpdate update_record(const TaskDir& dir, TaskLock& lock, std::string_view id,
                           const RecordChange& change, const TaskRecord* replacement = nullptr);

// update_record after opening the task's `ID.lock`; `gone` when it is
// missing (Error(failure) when it exists but cannot be opened).
RecordUpdate update_record(const TaskDir& dir, std::string_view id, const RecordChange& change);

// A task's own writer (its supervisor, queued or running) changing its
// record: update_record with `record` as the replacement of a corrupt one.
// True once saved, and `record` is then the saved record; false when the
// task was removed, and `record` is left as it was. Throws like
// update_record (`record` is then unchanged too).
bool update_own_record(const TaskDir& dir, TaskLock& lock, TaskRecord& record,
                       const std::function<void(TaskRecord&)>& change);

// Writes the first record of a task while `lock` (its owned, just created
// `ID.lock`) names it, under the update lock. Throws Error(failure) when the
// lock file was taken away meanwhile (`cleanup` judged it an orphan) or the
// save fails. Its events follow as update_record's do.
void create_record(const TaskDir& dir, TaskLock& lock, TaskRecord& record);

// One first record of a group start, with its task's owned lock.
struct NewRecord
{
  TaskLock* lock;
  TaskRecord* record;
};

// Writes the first records of many tasks with one sync for all of them:
// each record to a temp, then syncfs(2) (the temps, and whatever else the
// caller wrote in the directory unsynced, such as the tasks' other files),
// then each rename under its update lock while its `ID.lock` names it,
// then syncfs again, then their events in one append and one sync
// (record_events.hpp). Durable on return; a crash before leaves no torn
// record, only temps. Throws Error(failure) naming the first task whose
// record could not be written; the records renamed before it exist but may
// not be durable.
void create_records(const TaskDir& dir, const std::vector<NewRecord>& batch);

// update_record for many tasks (`locks[i]` opened for `ids[i]`) with the
// syncs of create_records: one for all of them. Returns each task's
// outcome, in order. Throws as create_records does.
std::vector<RecordUpdate> update_records(const TaskDir& dir, const std::vector<TaskLock*>& locks,
                                         const std::vector<std::string>& ids,
                                         const RecordChange& change);

} // namespace bgtask
