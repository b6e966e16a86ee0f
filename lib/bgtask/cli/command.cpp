#include <bgtask/cli/command.hpp>
#include <bgtask/exec/executors.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/util/error.hpp>

#include <algorithm>

namespace bgtask {

TaskDir open_task_dir(const GlobalOptions& global)
{
  TaskDir dir = TaskDir::open(TaskDir::resolve_path(global.dir));
  admit_waiting_tasks(dir, AdmitWhen::if_due); // a hand-off lost with a process that died
  return dir;
}

std::optional<TaskDir> open_existing_task_dir(const GlobalOptions& global)
{
  auto dir = TaskDir::open_existing(TaskDir::resolve_path(global.dir));
  if (dir) {
    admit_waiting_tasks(*dir, AdmitWhen::if_due);
  }
  return dir;
}

TaskDir open_task_dir_to_read(const GlobalOptions& global)
{
  auto dir = open_existing_task_dir(global);
  if (!dir) {
    throw_usage("no task in " + TaskDir::resolve_path(global.dir) + " (it does not exist)");
  }
  return std::move(*dir);
}

bool is_hidden(const Command& command)
{
  return command.name.starts_with("__");
}

const Command* find_command(std::span<const Command> table, std::string_view name)
{
  const auto it = std::lower_bound(table.begin(), table.end(), name,
                                   [](const Command& c, std::string_view n) { return c.name < n; });
  return it != table.end() && it->name == name ? &*it : nullptr;
}

} // namespace bgtask
