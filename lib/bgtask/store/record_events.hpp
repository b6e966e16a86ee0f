#pragma once

#include <bgtask/core/stream_event.hpp>
#include <bgtask/core/task_record.hpp>

#include <span>
#include <vector>

namespace bgtask {

class TaskDir;

// Appends to the event log what one durable change of a record stands for
// (`before`: nullptr for a first record); record_transaction calls it
// after each save. In a DirSyncBatch the events wait for the batch's
// directory sync and go in one append. A failure to append is reported on
// stderr and swallowed: the record is the truth, and a final state the log
// lacks is backfilled (append_missing_final_events).
void log_record_change(const TaskDir& dir, const TaskRecord* before, const TaskRecord& after);

// The events of many durable changes (a group start's first records,
// `before[i]` nullptr then; a batch of cancels) in one append under one
// lock and one sync (errors reported, swallowed, as log_record_change's).
void log_record_changes(const TaskDir& dir, std::span<const TaskRecord* const> before,
                        std::span<const TaskRecord* const> after);

// Appends `events` as log_record_change does (errors reported, swallowed).
void log_events(const TaskDir& dir, const std::vector<StreamEvent>& events);

// For each final record of `records` whose task has no task.exited event
// in the log, and that ended after the log's oldest event: takes the
// task's update lock, looks again, and appends its final events. Returns
// how many tasks it backfilled. Throws Error(failure).
std::size_t append_missing_final_events(const TaskDir& dir, const std::vector<TaskRecord>& records);

} // namespace bgtask
