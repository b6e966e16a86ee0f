#include <bgtask/cli/pause_command.hpp>
#include <bgtask/commands/commands.hpp>

namespace bgtask {

namespace {

constexpr CommandSyntax k_syntax{
  "resume", "ID... [--json]",
  "Continues tasks stopped by `bgtask pause` (SIGCONT to every process of the task).\n"
  "Returns once each record shows the task running again."};

} // namespace

int run_resume(const GlobalOptions& global, const std::vector<std::string>& args)
{
  return change_pause(global, args, k_syntax, PauseAction::resume);
}

} // namespace bgtask
