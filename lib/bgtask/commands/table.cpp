#include <bgtask/cli/command.hpp>
#include <bgtask/commands/commands.hpp>

#include <algorithm>
#include <array>

namespace bgtask {

namespace {

constexpr std::array<Command, 14> k_commands{{
  {"__complete", "complete a command line for the shell completion scripts", run_complete},
  {"cancel", "stop running tasks (TERM, then KILL after a grace period)", run_cancel},
  {"cleanup", "delete the files of finished tasks", run_cleanup},
  {"list", "list tasks, oldest first", run_list},
  {"output", "print or follow a task's output", run_output},
  {"pause", "stop running tasks with their whole process tree until resumed", run_pause},
  {"progress", "report the progress of a running task", run_progress},
  {"queue", "show queues, or set how many of a queue's tasks may run at once", run_queue},
  {"rerun", "start a new task with the command and options of an earlier one", run_rerun},
  {"resume", "continue paused tasks", run_resume},
  {"run", "start a task and stream its output; detach if it runs long", run_run},
  {"start", "start a command in the background and print its task ID", run_start},
  {"status", "show a task's record and the end of its output", run_status},
  {"wait", "wait for tasks to finish; exit with their status", run_wait},
}};

static_assert(std::is_sorted(k_commands.begin(), k_commands.end(),
                             [](const Command& a, const Command& b) { return a.name < b.name; }));

} // namespace

std::span<const Command> all_commands()
{
  return k_commands;
}

bool is_hidden(const Command& command)
{
  return command.name.starts_with("__");
}

const Command* find_command(std::string_view name)
{
  const auto it = std::lower_bound(k_commands.begin(), k_commands.end(), name,
                                   [](const Command& c, std::string_view n) { return c.name < n; });
  return it != k_commands.end() && it->name == name ? &*it : nullptr;
}

} // namespace bgtask
