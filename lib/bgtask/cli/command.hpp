#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace bgtask {

// Options that precede the command name.
struct GlobalOptions
{
  std::optional<std::string> dir;
};

// Runs one command with its own arguments (everything after its name);
// returns the exit code. A handler parses its arguments with
// parse_command_line before it does anything else: shell completion calls
// it with `--help` to learn its options (describe_command).
using CommandHandler = int (*)(const GlobalOptions& global, const std::vector<std::string>& args);

struct Command
{
  std::string_view name;
  std::string_view summary;
  CommandHandler handler;
};

// Every command, sorted by name; drives dispatch and `bgtask --help`.
std::span<const Command> all_commands();

// True for commands that work but are meant for scripts, not people
// (named `__...`): left out of --help and of completion.
bool is_hidden(const Command& command);

// The command called `name`, or nullptr.
const Command* find_command(std::string_view name);

} // namespace bgtask
