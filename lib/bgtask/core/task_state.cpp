#include <bgtask/core/task_state.hpp>

namespace bgtask {

std::string_view to_string(TaskState state)
{
  for (const auto& [value, name] : k_task_states) {
    if (value == state) {
      return name;
    }
  }
  return "unknown";
}

std::optional<TaskState> parse_task_state(std::string_view text)
{
  for (const auto& [value, name] : k_task_states) {
    if (name == text) {
      return value;
    }
  }
  return std::nullopt;
}

std::string task_state_names(std::string_view separator, std::string_view last)
{
  std::string text;
  for (std::size_t i = 0; i < k_task_states.size(); ++i) {
    if (i > 0) {
      text += i + 1 == k_task_states.size() ? last : separator;
    }
    text += k_task_states[i].second;
  }
  return text;
}

bool is_final(TaskState state)
{
  return state != TaskState::queued && state != TaskState::running;
}

} // namespace bgtask
