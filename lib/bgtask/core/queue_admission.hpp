#pragma once

#include <bgtask/core/task_record.hpp>

#include <string>

namespace bgtask {

// The rules of a queued task's admission, pure. A queued task of the local
// executor has no process while it waits: its record alone (state queued,
// `waiting_for` set, no owner) says that it is *parked*. Slots go out first
// come, first served: a queue's order is the order of creation, which task
// IDs sort by.

// True if a task must wait before its command may start: it names
// dependencies (--after) or a queue (--queue).
bool must_wait_for_turn(const TaskRecord& record);

// True for a parked record: a local task, queued, waiting for a slot or its
// --after tasks, owned by no process. Reconciliation never calls it lost.
bool is_parked(const TaskRecord& record);

// What a parked task waits for first: its --after tasks, else a slot.
WaitingFor first_wait(const TaskRecord& record);

// The message of the `queued` event: why the task waits.
std::string waiting_text(const TaskRecord& record);

// What one --after task's current record means for the task waiting on it.
enum class DependencyState { waiting, succeeded, failed };
DependencyState dependency_state(const TaskRecord& dependency);

} // namespace bgtask
