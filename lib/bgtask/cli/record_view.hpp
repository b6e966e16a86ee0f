#pragma once

#include <bgtask/cli/console.hpp>
#include <bgtask/core/task_record.hpp>
#include <bgtask/util/table.hpp>

#include <string>

namespace bgtask {

// The command as a person would type it: the shell string for `-c` tasks,
// else argv with shell quoting where needed. Not escaped for terminals.
std::string command_text(const TaskRecord& record);

// The state with what qualifies it: `failed (exit 2)`, `running (unsupervised)`.
std::string state_text(const TaskRecord& record);

// Which columns `list` shows: ID, STATE, EXIT, STARTED, ELAPSED, NAME
// (the name, else the command shortened), and with `wide` also CWD and the
// full COMMAND (NAME is then `-` for unnamed tasks).
enum class ListColumns { normal, wide };

// ID, STATE, EXIT, STARTED and DURATION are never cut to fit a terminal;
// the text columns after them are.
inline constexpr std::size_t k_list_fixed_columns = 5;

// The index of STARTED in a row of `list`.
inline constexpr std::size_t k_list_started_column = 3;

// The header and rows of `list`; cells are always escaped (escape_table_cell), and with
// Color::yes the state is coloured.
TableRow list_header(ListColumns columns = ListColumns::normal);
TableRow list_row(const TaskRecord& record, ListColumns columns = ListColumns::normal,
                  Color color = Color::no);

// The STARTED cell of `list` when the full one does not fit the terminal:
// `18:12` today, `12-05` on an earlier day (format_short_list_time), or `-`.
std::string short_list_started(const TaskRecord& record);

// The INFO cell of `list`, escaped: why a queued task waits (`slot in Q`,
// `after ID,ID`, Slurm's reason), a running task's progress (`45% linking`)
// or `paused`, a failed task's reason; `-` when there is nothing to say.
std::string list_info(const TaskRecord& record);

// The row for a record that cannot be read: state `corrupt` and the reason.
TableRow corrupt_list_row(const std::string& id, const std::string& reason,
                          ListColumns columns = ListColumns::normal, Color color = Color::no);

// What a task last said of its progress: "42.0% 3/7 message" (each part
// only if given). Not escaped for terminals.
std::string progress_summary(const Progress& progress);

// The record in readable form for `status` (one "Key  value" line each).
std::string status_text(const TaskRecord& record);

// Prints a warning on stderr and returns false when the open output file
// `fd` (-1: there is none) lacks bytes the final `record` counts
// (missing_output_bytes).
bool warn_if_output_incomplete(int fd, const TaskRecord& record);

// Prints the warning of warn_if_output_incomplete for `missing` bytes of
// `record`'s output; returns false if it printed one (`missing` is not 0).
bool warn_if_output_missing(const TaskRecord& record, std::uint64_t missing);

} // namespace bgtask
