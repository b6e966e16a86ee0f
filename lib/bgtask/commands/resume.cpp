#include <bgtask/commands/commands.hpp>
#include <bgtask/commands/pause.hpp>

namespace bgtask {

int run_resume(const GlobalOptions& global, const CommandArgs& args)
{
  return run_pause_action(global, args, PauseAction::resume);
}

} // namespace bgtask
