#pragma once

#include <bgtask/core/task_record.hpp>

#include <optional>
#include <vector>

namespace bgtask {

// The exit code that stands for a task's outcome (README, "Exit codes"):
// 0 succeeded; failed: its exit code, or 128 + signal; timed_out 124;
// cancelled 125; lost 75; unfinished 4 (a wait that gave up).
int exit_status_of(const TaskRecord& record);

// exit_status_of for a final record; nullopt while it is unfinished. This
// is the `wait_status` of the record's JSON.
std::optional<int> wait_status_of(const TaskRecord& record);

// 0 if every record succeeded, else the status of the first that did not.
int combined_exit_status(const std::vector<TaskRecord>& records);

} // namespace bgtask
