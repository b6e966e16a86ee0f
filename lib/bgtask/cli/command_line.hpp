#pragma once

#include <bgtask/cli/command.hpp>

#include <boost/program_options.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bgtask {

namespace po = boost::program_options;

// How one command is called, for its --help and for parsing.
struct CommandSyntax
{
  std::string_view name;
  std::string_view usage;   // e.g. "ID... [--json] [--tail N]"
  std::string_view summary; // one sentence
};

// Parses a command's arguments strictly (no prefix guessing, no unknown
// options) against `options` plus --help, with `positional` names. Prints
// the help (without the options that only receive positional arguments)
// and returns nullopt for --help. Throws Error(usage) with
// `bgtask NAME: ...` for malformed arguments.
std::optional<po::variables_map>
parse_command_line(const CommandSyntax& syntax, po::options_description options,
                   const po::positional_options_description& positional,
                   const std::vector<std::string>& args);

// parse_command_line for a command with at most one positional argument,
// found in the result as option `name` (`description` says what it is).
std::optional<po::variables_map>
parse_command_line_with_operand(const CommandSyntax& syntax, po::options_description options,
                                const char* name, const char* description,
                                const std::vector<std::string>& args);

// How many task IDs a command takes as its positional arguments: exactly
// one, one or more, or any number (none when options select the tasks).
enum class IdCount { one, many, any };

// A command's parsed options and the task IDs (or prefixes) it was given.
struct IdCommandLine
{
  po::variables_map vm;
  std::vector<std::string> ids;
};

// parse_command_line for a command whose positional arguments are task IDs
// or prefixes: exactly one, or one or more. Nullopt for --help; throws
// Error(usage) when no ID is given or one is malformed (check_task_id_prefix).
std::optional<IdCommandLine> parse_id_command_line(const CommandSyntax& syntax,
                                                   po::options_description options, IdCount count,
                                                   const std::vector<std::string>& args);

// What a command accepts: its options as --help shows them (with --help,
// without those that only receive positional arguments) and its positional
// arguments.
struct CommandOptions
{
  std::vector<boost::shared_ptr<po::option_description>> options;
  po::positional_options_description positional;
};

// What `handler` passes to parse_command_line, found by calling it with
// `--help` while its parsing is intercepted: nothing is printed or run.
// Nullopt if the handler never called parse_command_line.
std::optional<CommandOptions> describe_command(CommandHandler handler);

// The value of option `name` if given.
template <typename T> std::optional<T> optional_value(const po::variables_map& vm, const char* name)
{
  if (vm.count(name) == 0) {
    return std::nullopt;
  }
  return vm[name].as<T>();
}

// Parses a non-negative decimal count given to `option` (at most 10^9);
// throws Error(usage) naming the option otherwise.
std::size_t parse_count(std::string_view text, std::string_view option);

// Parses a --state list ("failed,lost"); `extra` is one more accepted
// name (e.g. "corrupt"), empty for none. Throws Error(usage) for unknown states.
std::vector<std::string> parse_state_list(std::string_view text, std::string_view extra);

// Splits "a,b,c" into its non-empty parts.
std::vector<std::string> split_list(std::string_view text);

} // namespace bgtask
