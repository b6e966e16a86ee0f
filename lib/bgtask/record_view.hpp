#pragma once

#include <bgtask/table.hpp>
#include <bgtask/task_record.hpp>

#include <string>

namespace bgtask {

// The command as a person would type it: the shell string for `-c` tasks,
// else argv with shell quoting where needed. Not escaped for terminals.
std::string command_text(const TaskRecord& record);

// The state with what qualifies it: `failed (exit 2)`, `running (unsupervised)`.
std::string state_text(const TaskRecord& record);

// The columns of `list`: ID, STATE, EXIT, STARTED, DURATION, NAME.
TableRow list_header();
TableRow list_row(const TaskRecord& record);

// The record in readable form for `status` (one "Key  value" line each).
std::string status_text(const TaskRecord& record);

} // namespace bgtask
