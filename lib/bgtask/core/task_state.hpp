#pragma once

#include <optional>
#include <string_view>

namespace bgtask {

// The life cycle of a task. `queued` and `running` are unfinished; the rest
// are final and never change once written by the task's owner.
enum class TaskState { queued, running, succeeded, failed, cancelled, timed_out, lost };

std::string_view to_string(TaskState state);

// Parses the names to_string produces; nullopt for anything else.
std::optional<TaskState> parse_task_state(std::string_view text);

// True for succeeded, failed, cancelled, timed_out and lost.
bool is_final(TaskState state);

} // namespace bgtask
