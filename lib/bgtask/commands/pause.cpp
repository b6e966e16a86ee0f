#include <bgtask/cli/pause_command.hpp>
#include <bgtask/commands/commands.hpp>

namespace bgtask {

namespace {

constexpr CommandSyntax k_syntax{
  "pause", "ID... [--json]",
  "Stops running tasks with their whole process tree (SIGSTOP to every process of the task)\n"
  "until `bgtask resume`. The timeout does not run out while a task is paused; cancel still\n"
  "works. Returns once each record shows the task paused."};

} // namespace

int run_pause(const GlobalOptions& global, const std::vector<std::string>& args)
{
  return change_pause(global, args, k_syntax, PauseAction::pause);
}

} // namespace bgtask
