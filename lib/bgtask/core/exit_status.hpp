#pragma once

#include <bgtask/core/task_record.hpp>

#include <vector>

namespace bgtask {

// The exit code that stands for a task's outcome (README, "Exit codes"):
// 0 succeeded; failed: its exit code, or 128 + signal; timed_out 124;
// cancelled 130; lost 75; unfinished 124 (a wait that timed out).
int exit_status_of(const TaskRecord& record);

// 0 if every record succeeded, else the status of the first that did not.
int combined_exit_status(const std::vector<TaskRecord>& records);

} // namespace bgtask
