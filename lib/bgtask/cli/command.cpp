#include <bgtask/cli/command.hpp>
#include <bgtask/exec/executors.hpp>
#include <bgtask/store/task_dir.hpp>

#include <algorithm>

namespace bgtask {

TaskDir open_task_dir(const GlobalOptions& global)
{
  TaskDir dir = TaskDir::open(TaskDir::resolve_path(global.dir));
  admit_waiting_tasks(dir); // a hand-off lost with a process that died
  return dir;
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
