#include <bgtask/core/task_state.hpp>

#include <array>
#include <utility>

namespace bgtask {

namespace {

constexpr std::array<std::pair<TaskState, std::string_view>, 7> k_state_names{{
  {TaskState::queued, "queued"},
  {TaskState::running, "running"},
  {TaskState::succeeded, "succeeded"},
  {TaskState::failed, "failed"},
  {TaskState::cancelled, "cancelled"},
  {TaskState::timed_out, "timed_out"},
  {TaskState::lost, "lost"},
}};

} // namespace

std::string_view to_string(TaskState state)
{
  for (const auto& [value, name] : k_state_names) {
    if (value == state) {
      return name;
    }
  }
  return "unknown";
}

std::optional<TaskState> parse_task_state(std::string_view text)
{
  for (const auto& [value, name] : k_state_names) {
    if (name == text) {
      return value;
    }
  }
  return std::nullopt;
}

bool is_final(TaskState state)
{
  return state != TaskState::queued && state != TaskState::running;
}

} // namespace bgtask
