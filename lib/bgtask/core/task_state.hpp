#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace bgtask {

// The life cycle of a task. `queued` and `running` are unfinished; the rest
// are final and never change once written by the task's owner.
enum class TaskState { queued, running, succeeded, failed, cancelled, timed_out, lost };

// Every state with its name (as records, options and messages spell it), in
// the order of a task's life: the one list of state names.
inline constexpr std::array<std::pair<TaskState, std::string_view>, 7> k_task_states{{
  {TaskState::queued, "queued"},
  {TaskState::running, "running"},
  {TaskState::succeeded, "succeeded"},
  {TaskState::failed, "failed"},
  {TaskState::cancelled, "cancelled"},
  {TaskState::timed_out, "timed_out"},
  {TaskState::lost, "lost"},
}};

std::string_view to_string(TaskState state);

// Parses the names to_string produces; nullopt for anything else.
std::optional<TaskState> parse_task_state(std::string_view text);

// Every state name, in order, joined by `separator`, the last two by `last`:
// task_state_names(", ", " or ") is "queued, running, ... timed_out or lost".
std::string task_state_names(std::string_view separator, std::string_view last);

// True for succeeded, failed, cancelled, timed_out and lost.
bool is_final(TaskState state);

} // namespace bgtask
