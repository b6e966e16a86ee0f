#pragma once

#include <bgtask/core/task_record.hpp>

#include <optional>
#include <string_view>

namespace bgtask {

class TaskLock;

// Room a supervisor keeps in its task's lock file (`ID.lock`), so that a
// full disk does not cost the task its final record. The lock file's content
// is free: its locks are byte-range locks that ignore it.

// Preallocates the reserve (64 KiB). Returns 0 or the errno of fallocate:
// ENOSPC or EDQUOT mean the disk is (nearly) full; other errors (a file
// system without fallocate) just mean there is no reserve.
int reserve_outcome_space(const TaskLock& lock);

// Gives the reserve back to the file system except the note area, so that a
// record write that just failed for want of space finds room when retried.
void release_outcome_space(const TaskLock& lock);

// Drops the reserve and any note: the final record is written.
void drop_outcome_reserve(const TaskLock& lock);

// The last resort when the final record cannot be written: stores it in the
// note area of the lock file, in place (no new file, block or inode needed).
// Best effort; never throws.
void write_outcome_note(const TaskLock& lock, const TaskRecord& final_record);

// The final record a supervisor left in its note, if there is a valid one
// for task `id`.
std::optional<TaskRecord> read_outcome_note(const TaskLock& lock, std::string_view id);

} // namespace bgtask
