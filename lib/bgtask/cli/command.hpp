#pragma once

#include <bgtask/cli/color_choice.hpp>

#include <boost/program_options.hpp>

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace bgtask {

namespace po = boost::program_options;

class TaskDir;

// The global options (cli/global_options): before the command name, and
// --dir and --color after it too.
struct GlobalOptions
{
  std::optional<std::string> dir;
  std::optional<ColorChoice> color;
  bool help = false;
  bool version = false;
};

// The task directory that --dir (else $BGTASK_DIR, else the default) names,
// opened as a command uses it (TaskDir::resolve_path, TaskDir::open), once
// its parked tasks that may start now were started (admit_waiting_tasks).
// Throws Error.
TaskDir open_task_dir(const GlobalOptions& global);

// The same task directory for a command that only reads: nullopt when it
// does not exist (it is not created).
std::optional<TaskDir> open_existing_task_dir(const GlobalOptions& global);

// open_existing_task_dir for a command that selects tasks: a missing
// directory has none, so it throws the usage Error "no task in DIR".
TaskDir open_task_dir_to_read(const GlobalOptions& global);

// What a command takes besides its options. Parsing (parse_command_args),
// --help and completion all read it from the command's declaration.
enum class Operands {
  none,             // options only
  task_id,          // exactly one task ID or prefix
  task_ids,         // one or more task IDs or prefixes
  any_task_ids,     // any number of task IDs or prefixes (options may select tasks instead)
  optional_task_id, // at most one task ID or prefix
  optional_queue,   // at most one queue name
  command,          // the words after the first `--`, passed on unparsed
  words,            // every argument, unparsed: the command has no options
};

// A command's arguments, parsed against its declaration.
struct CommandArgs
{
  po::variables_map options;
  std::vector<std::string> operands; // the positional arguments (IDs, a queue name, or words)
  std::vector<std::string> command;  // Operands::command: the words after `--`, if any
};

// Runs one command with its parsed arguments; returns the exit code.
using CommandHandler = int (*)(const GlobalOptions& global, const CommandArgs& args);

// Builds a command's options (every command also gets --help).
using OptionsFactory = po::options_description (*)();

// One command's declaration: what it is called, how it is described, what
// it accepts and what runs it. Dispatch, --help and completion read the
// same declaration; none of them calls the handler to learn it.
struct Command
{
  std::string_view name;
  std::string_view summary; // one line, for `bgtask --help` and completion
  std::string_view usage;   // what follows `bgtask NAME` in its usage line
  std::string_view help;    // the paragraph `bgtask NAME --help` shows
  OptionsFactory options;
  Operands operands;
  CommandHandler handler;
};

// True for commands that work but are meant for scripts, not people
// (named `__...`): left out of --help and of completion.
bool is_hidden(const Command& command);

// The command called `name` in `table` (sorted by name), or nullptr.
const Command* find_command(std::span<const Command> table, std::string_view name);

} // namespace bgtask
