#include <bgtask/cli/pause_command.hpp>
#include <bgtask/commands/commands.hpp>

namespace bgtask {

// Also the options of `resume`.
po::options_description pause_options()
{
  po::options_description options;
  options.add_options()("json", "print a JSON array of the records");
  return options;
}

int run_pause(const GlobalOptions& global, const CommandArgs& args)
{
  return change_pause(global, args, PauseAction::pause);
}

} // namespace bgtask
