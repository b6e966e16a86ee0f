#include <bgtask/cli/completion.hpp>
#include <bgtask/commands/commands.hpp>
#include <bgtask/commands/table.hpp>

#include <iostream>

namespace bgtask {

// `bgtask __complete WORD...`: what the shell completion scripts call with
// the words after `bgtask` (the last one being completed). Prints the
// completion in the form format_completion describes, or nothing at all if
// anything goes wrong; always exits 0.
int run_complete(const GlobalOptions& global, const CommandArgs& args)
{
  std::string text;
  try {
    text = format_completion(complete_command_line(all_commands(), args.operands, global.dir));
  } catch (...) {
    return 0;
  }
  std::cout << text << std::flush;
  return 0;
}

} // namespace bgtask
