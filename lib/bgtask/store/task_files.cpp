#include <bgtask/core/task_id.hpp>
#include <bgtask/store/task_files.hpp>
#include <bgtask/util/random_token.hpp>

namespace bgtask {

namespace {

constexpr std::string_view k_status_suffix = ".status.json";
constexpr std::string_view k_output_suffix = ".output";
constexpr std::string_view k_lock_suffix = ".lock";
constexpr std::string_view k_outcome_suffix = ".outcome.json";
constexpr std::string_view k_temp_suffix = ".tmp";
constexpr std::size_t k_temp_token_length = 16;

std::optional<TaskFileName> with_suffix(std::string_view name, std::string_view suffix,
                                        TaskFileKind kind)
{
  if (name.size() != k_task_id_length + suffix.size() || !name.ends_with(suffix)) {
    return std::nullopt;
  }
  const auto id = name.substr(0, k_task_id_length);
  if (!is_task_id(id)) {
    return std::nullopt;
  }
  return TaskFileName{std::string(id), kind};
}

} // namespace

std::string status_file_name(std::string_view id)
{
  return std::string(id) + std::string(k_status_suffix);
}

std::string output_file_name(std::string_view id)
{
  return std::string(id) + std::string(k_output_suffix);
}

std::string lock_file_name(std::string_view id)
{
  return std::string(id) + std::string(k_lock_suffix);
}

std::string outcome_file_name(std::string_view id)
{
  return std::string(id) + std::string(k_outcome_suffix);
}

std::string temp_file_name(std::string_view target)
{
  return "." + std::string(target) + "." + random_token().substr(0, 16) +
         std::string(k_temp_suffix);
}

std::optional<TaskFileName> parse_task_file_name(std::string_view name)
{
  if (name.starts_with('.')) {
    // Exactly `.TARGET.<16 lowercase hex>.tmp` for a task file TARGET, so
    // `cleanup` never takes some other hidden file for a stale temp.
    const std::size_t tail = 1 + k_temp_token_length + k_temp_suffix.size();
    if (!name.ends_with(k_temp_suffix) || name.size() < 1 + tail ||
        name[name.size() - tail] != '.') {
      return std::nullopt;
    }
    const auto token = name.substr(name.size() - tail + 1, k_temp_token_length);
    if (token.find_first_not_of("0123456789abcdef") != std::string_view::npos) {
      return std::nullopt;
    }
    const auto target = parse_task_file_name(name.substr(1, name.size() - tail - 1));
    if (!target || target->kind == TaskFileKind::temp) {
      return std::nullopt;
    }
    return TaskFileName{target->id, TaskFileKind::temp};
  }
  if (auto f = with_suffix(name, k_status_suffix, TaskFileKind::status)) {
    return f;
  }
  if (auto f = with_suffix(name, k_output_suffix, TaskFileKind::output)) {
    return f;
  }
  if (auto f = with_suffix(name, k_outcome_suffix, TaskFileKind::outcome)) {
    return f;
  }
  return with_suffix(name, k_lock_suffix, TaskFileKind::lock);
}

} // namespace bgtask
