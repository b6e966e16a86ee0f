#include <bgtask/task_files.hpp>

#include <bgtask/process_info.hpp>
#include <bgtask/task_id.hpp>


namespace bgtask {

namespace {

constexpr std::string_view k_status_suffix = ".status.json";
constexpr std::string_view k_output_suffix = ".output";
constexpr std::string_view k_lock_suffix = ".lock";
constexpr std::string_view k_temp_suffix = ".tmp";

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

std::string temp_file_name(std::string_view target)
{
  return "." + std::string(target) + "." + random_token().substr(0, 16) + std::string(k_temp_suffix);
}

std::optional<TaskFileName> parse_task_file_name(std::string_view name)
{
  if (name.starts_with('.')) {
    if (!name.ends_with(k_temp_suffix) || name.size() < 1 + k_task_id_length) {
      return std::nullopt;
    }
    const auto id = name.substr(1, k_task_id_length);
    if (!is_task_id(id) || name[1 + k_task_id_length] != '.') {
      return std::nullopt;
    }
    return TaskFileName{std::string(id), TaskFileKind::temp};
  }
  if (auto f = with_suffix(name, k_status_suffix, TaskFileKind::status)) {
    return f;
  }
  if (auto f = with_suffix(name, k_output_suffix, TaskFileKind::output)) {
    return f;
  }
  return with_suffix(name, k_lock_suffix, TaskFileKind::lock);
}

} // namespace bgtask
