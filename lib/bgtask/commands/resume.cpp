#include <bgtask/cli/pause_command.hpp>
#include <bgtask/commands/commands.hpp>

namespace bgtask {

int run_resume(const GlobalOptions& global, const CommandArgs& args)
{
  return change_pause(global, args, PauseAction::resume);
}

} // namespace bgtask
