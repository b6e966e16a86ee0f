#pragma once

#include <bgtask/cli/command.hpp>
#include <bgtask/util/decimal_count.hpp>
#include <bgtask/util/duration.hpp>
#include <bgtask/util/result.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bgtask {

// Parses a command's arguments (everything after its name) against its
// declaration: strictly (no prefix guessing, no unknown options), with
// --help added, its operands as the declaration says (task IDs are checked
// with check_task_id_prefix; Operands::command splits at the first `--`).
// Prints the command's help and returns nullopt for --help. Throws
// Error(usage) with `bgtask NAME: ...` for malformed arguments.
std::optional<CommandArgs> parse_command_args(const Command& command,
                                              const std::vector<std::string>& args);

// The options `bgtask NAME --help` shows: the declared ones, then --help.
po::options_description visible_options(const Command& command);

// The value of option `name` if given.
template <typename T> std::optional<T> optional_value(const po::variables_map& vm, const char* name)
{
  if (vm.count(name) == 0) {
    return std::nullopt;
  }
  return vm[name].as<T>();
}

// The duration given to option `name` (parse_duration), if given; a
// malformed one is Error(usage).
std::optional<Milliseconds> optional_duration(const po::variables_map& vm, const char* name);

// Parses a --state list ("failed,lost"); `extra` is one more accepted
// name (e.g. "corrupt"), empty for none. Throws Error(usage) for unknown states.
std::vector<std::string> parse_state_list(std::string_view text, std::string_view extra);

} // namespace bgtask
