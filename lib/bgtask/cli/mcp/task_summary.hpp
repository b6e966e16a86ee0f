#pragma once

#include <bgtask/core/task_record.hpp>

#include <boost/json/object.hpp>

#include <string>

namespace bgtask::mcp {

// What an agent needs of a record, about 300 bytes: id, state, and where
// they apply name, exit_code, signal, wait_status, error, command (its
// first 200 bytes), cwd, started_at, finished_at, duration_ms, progress,
// output_bytes, queue, waiting_for. Absent fields are left out.
boost::json::object task_summary(const TaskRecord& record);

// One line for people: "task ID (NAME) failed: exit 2 after 3.2 s".
std::string task_line(const TaskRecord& record);

// How long the task ran, or has run so far, in milliseconds; nullopt before it started.
std::optional<std::int64_t> task_duration_ms(const TaskRecord& record);

} // namespace bgtask::mcp
