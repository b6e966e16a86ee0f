#include <bgtask/cli/command_line.hpp>
#include <bgtask/cli/option_help.hpp>
#include <bgtask/core/task_id.hpp>
#include <bgtask/core/task_state.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/spelling.hpp>
#include <bgtask/util/split.hpp>
#include <bgtask/util/terminal_escape.hpp>

#include <algorithm>
#include <iostream>
#include <tuple>
#include <utility>

namespace bgtask {

namespace {

// How a command's operands reach the parser: as the hidden option `name`
// that the positional arguments fill, `count` of them (-1: any number).
struct OperandOption
{
  const char* name;
  const char* description;
  int count;
};

std::optional<OperandOption> operand_option(Operands operands)
{
  switch (operands) {
  case Operands::task_id:
  case Operands::optional_task_id:
    return OperandOption{"id", "task ID", 1};
  case Operands::task_ids:
  case Operands::any_task_ids:
    return OperandOption{"id", "task IDs", -1};
  case Operands::optional_queue:
    return OperandOption{"name", "queue name", 1};
  case Operands::none:
  case Operands::command:
  case Operands::words:
    break;
  }
  return std::nullopt;
}

// Splits arguments at the first `--`: the command's options before, the
// command to run after.
std::pair<std::vector<std::string>, std::vector<std::string>>
split_at_separator(const std::vector<std::string>& args)
{
  const auto separator = std::find(args.begin(), args.end(), "--");
  std::vector<std::string> own(args.begin(), separator);
  std::vector<std::string> command;
  if (separator != args.end()) {
    command.assign(separator + 1, args.end());
  }
  return {std::move(own), std::move(command)};
}

// The operands found in `vm`, checked against what `command` requires.
std::vector<std::string> take_operands(const Command& command, const OperandOption& operand,
                                       const po::variables_map& vm)
{
  std::vector<std::string> operands;
  if (operand.count == 1) {
    if (auto value = optional_value<std::string>(vm, operand.name)) {
      operands.push_back(std::move(*value));
    }
  } else if (auto values = optional_value<std::vector<std::string>>(vm, operand.name)) {
    operands = std::move(*values);
  }
  const bool required =
    command.operands == Operands::task_id || command.operands == Operands::task_ids;
  const bool ids = required || command.operands == Operands::any_task_ids;
  if (required && operands.empty()) {
    throw_usage(
      "bgtask " + std::string(command.name) +
      (command.operands == Operands::task_id ? ": give a task ID" : ": give at least one task ID"));
  }
  if (ids) {
    // Malformed IDs are refused before the directory is touched (or created).
    for (const auto& id : operands) {
      check_task_id_prefix(id);
    }
  }
  return operands;
}

// A word where the command takes no (more) operands: the command of
// `start`/`run` without `--` before it, or one ID too many.
std::string extra_operand_message(const Command& command, const std::vector<std::string>& args)
{
  const std::string name(command.name);
  if (command.operands == Operands::command) {
    return "bgtask " + name + ": put `--` before the command: bgtask " + name +
           " [options] -- CMD [ARG...] (or -c 'SHELL STRING')";
  }
  const auto operand = std::find_if(args.rbegin(), args.rend(),
                                    [](const std::string& a) { return !a.starts_with('-'); });
  return "bgtask " + name + ": unexpected argument '" +
         escape_for_terminal(operand != args.rend() ? *operand : "", KeepNewlines::no) +
         "' (usage: bgtask " + name + " " + std::string(command.usage) + ")";
}

// Why an unknown option was refused: `start ls -la` needs `--` before the
// command; `--tiemout` was probably `--timeout`.
std::string unknown_option_message(const Command& command, const po::options_description& visible,
                                   const std::vector<std::string>& args,
                                   const po::unknown_option& error)
{
  const std::string option = error.get_option_name();
  const auto first_word = std::find_if(args.begin(), args.end(),
                                       [](const std::string& a) { return !a.starts_with('-'); });
  const auto at = std::find(args.begin(), args.end(), option);
  if (command.operands == Operands::command && first_word < at) {
    return extra_operand_message(command, args);
  }
  std::string message = "bgtask " + std::string(command.name) + ": unknown option '" +
                        escape_for_terminal(option, KeepNewlines::no) + "'";
  if (option.starts_with("--")) {
    std::vector<std::string_view> names;
    for (const auto& declared : visible.options()) {
      names.emplace_back(declared->long_name());
    }
    const std::string_view bare = std::string_view(option).substr(2);
    if (const auto meant = nearest_spelling(bare.substr(0, bare.find('=')), names)) {
      message += "; did you mean '--" + std::string(*meant) + "'?";
    }
  }
  return message + " (see bgtask " + std::string(command.name) + " --help)";
}

} // namespace

po::options_description visible_options(const Command& command)
{
  po::options_description visible("Options");
  if (command.options != nullptr) {
    const po::options_description declared = command.options();
    for (const auto& option : declared.options()) {
      visible.add(option);
    }
  }
  visible.add_options()("help,h", "show this help");
  return visible;
}

std::optional<CommandArgs> parse_command_args(const Command& command,
                                              const std::vector<std::string>& args)
{
  CommandArgs parsed;
  if (command.operands == Operands::words) {
    parsed.operands = args;
    return parsed;
  }
  std::vector<std::string> own = args;
  if (command.operands == Operands::command) {
    std::tie(own, parsed.command) = split_at_separator(args);
  }
  const auto operand = operand_option(command.operands);
  const po::options_description visible = visible_options(command);
  po::options_description all;
  all.add(visible);
  po::positional_options_description positional;
  if (operand) {
    if (operand->count == 1) {
      all.add_options()(operand->name, po::value<std::string>(), operand->description);
    } else {
      all.add_options()(operand->name, po::value<std::vector<std::string>>(), operand->description);
    }
    positional.add(operand->name, operand->count);
  }
  try {
    const auto style =
      po::command_line_style::default_style & ~po::command_line_style::allow_guessing;
    po::store(po::command_line_parser(own).options(all).positional(positional).style(style).run(),
              parsed.options);
    if (parsed.options.count("help") != 0) {
      std::cout << "usage: bgtask " << command.name << ' ' << command.usage << "\n\n"
                << command.help << "\n\n"
                << format_option_help(visible)
                << "\nGlobal options: bgtask --help. Details: man bgtask.\n";
      return std::nullopt;
    }
    po::notify(parsed.options);
  } catch (const po::too_many_positional_options_error&) {
    throw_usage(extra_operand_message(command, own));
  } catch (const po::unknown_option& e) {
    throw_usage(unknown_option_message(command, visible, own, e));
  } catch (const po::error& e) {
    throw_usage("bgtask " + std::string(command.name) + ": " + e.what() + " (see bgtask " +
                std::string(command.name) + " --help)");
  }
  if (operand) {
    parsed.operands = take_operands(command, *operand, parsed.options);
  }
  return parsed;
}

std::optional<Milliseconds> optional_duration(const po::variables_map& vm, const char* name)
{
  if (auto text = optional_value<std::string>(vm, name)) {
    return value_or_usage(parse_duration(*text));
  }
  return std::nullopt;
}

std::vector<std::string> parse_state_list(std::string_view text, std::string_view extra)
{
  auto states = split_list(text);
  if (states.empty()) {
    throw_usage("--state needs at least one state");
  }
  for (const auto& state : states) {
    if (!parse_task_state(state) && (extra.empty() || state != extra)) {
      throw_usage("unknown state '" + escape_for_terminal(state, KeepNewlines::no) +
                  "': expected " + task_state_names(", ", " or "));
    }
  }
  return states;
}

} // namespace bgtask
