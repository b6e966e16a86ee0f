#include <bgtask/cli/command_line.hpp>
#include <bgtask/cli/option_help.hpp>
#include <bgtask/core/task_id.hpp>
#include <bgtask/core/task_state.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/terminal_escape.hpp>

#include <algorithm>
#include <iostream>
#include <sstream>

namespace bgtask {

namespace {

// Set while describe_command runs a handler on this thread.
thread_local std::optional<CommandOptions>* t_description = nullptr;

bool is_positional(const po::positional_options_description& positional, const std::string& name)
{
  const unsigned count = std::min(positional.max_total_count(), 64U);
  for (unsigned i = 0; i < count; ++i) {
    if (positional.name_for_position(i) == name) {
      return true;
    }
  }
  return false;
}

// The options as --help shows them: those that only receive positional
// arguments (`ID...`, named in the usage line) are left out.
po::options_description visible_options(const po::options_description& options,
                                        const po::positional_options_description& positional)
{
  po::options_description visible("Options");
  for (const auto& option : options.options()) {
    if (!is_positional(positional, option->long_name())) {
      visible.add(option);
    }
  }
  return visible;
}

// While alive: parse_command_line hands its options to `description`
// instead of parsing, and whatever goes to std::cout is dropped.
class DescriptionScope
{
public:
  explicit DescriptionScope(std::optional<CommandOptions>& description)
    : m_saved(std::cout.rdbuf(m_discarded.rdbuf()))
  {
    t_description = &description;
  }
  ~DescriptionScope()
  {
    t_description = nullptr;
    std::cout.rdbuf(m_saved);
  }
  DescriptionScope(const DescriptionScope&) = delete;
  DescriptionScope& operator=(const DescriptionScope&) = delete;

private:
  std::ostringstream m_discarded;
  std::streambuf* m_saved;
};

// A word where the command takes no (more) operands: the command of
// `start`/`run` without `--` before it, or one ID too many.
std::string extra_operand_message(const CommandSyntax& syntax, const std::vector<std::string>& args)
{
  const std::string name(syntax.name);
  if (syntax.usage.find("-- CMD") != std::string_view::npos) {
    return "bgtask " + name + ": put `--` before the command: bgtask " + name +
           " [options] -- CMD [ARG...] (or -c 'SHELL STRING')";
  }
  const auto operand = std::find_if(args.rbegin(), args.rend(),
                                    [](const std::string& a) { return !a.starts_with('-'); });
  return "bgtask " + name + ": unexpected argument '" +
         escape_for_terminal(operand != args.rend() ? *operand : "", KeepNewlines::no) +
         "' (usage: bgtask " + name + " " + std::string(syntax.usage) + ")";
}

} // namespace

std::optional<CommandOptions> describe_command(CommandHandler handler)
{
  std::optional<CommandOptions> description;
  {
    const DescriptionScope scope(description);
    handler(GlobalOptions{}, {"--help"});
  }
  return description;
}

std::optional<po::variables_map>
parse_command_line(const CommandSyntax& syntax, po::options_description options,
                   const po::positional_options_description& positional,
                   const std::vector<std::string>& args)
{
  options.add_options()("help,h", "show this help");
  if (t_description != nullptr) {
    *t_description = CommandOptions{visible_options(options, positional).options(), positional};
    return std::nullopt;
  }
  po::options_description all;
  all.add(options);
  po::variables_map vm;
  try {
    const auto style =
      po::command_line_style::default_style & ~po::command_line_style::allow_guessing;
    po::store(po::command_line_parser(args).options(all).positional(positional).style(style).run(),
              vm);
    if (vm.count("help") != 0) {
      std::cout << "usage: bgtask " << syntax.name << ' ' << syntax.usage << "\n\n"
                << syntax.summary << "\n\n"
                << format_option_help(visible_options(options, positional))
                << "\nThe global --dir DIR may come before or after the command name. See man "
                   "bgtask.\n";
      return std::nullopt;
    }
    po::notify(vm);
  } catch (const po::too_many_positional_options_error&) {
    throw_usage(extra_operand_message(syntax, args));
  } catch (const po::error& e) {
    throw_usage("bgtask " + std::string(syntax.name) + ": " + e.what() + " (see bgtask " +
                std::string(syntax.name) + " --help)");
  }
  return vm;
}

std::size_t parse_count(std::string_view text, std::string_view option)
{
  std::size_t value = 0;
  const bool digits = !text.empty() && text.size() <= 10 &&
                      text.find_first_not_of("0123456789") == std::string_view::npos;
  if (digits) {
    for (const char c : text) {
      value = value * 10 + static_cast<std::size_t>(c - '0');
    }
  }
  if (!digits || value > 1'000'000'000) {
    throw_usage("invalid value '" + escape_for_terminal(text, KeepNewlines::no) + "' for " +
                std::string(option) + ": expected a whole number from 0 to 1000000000");
  }
  return value;
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
                  "': expected queued, running, succeeded, failed, cancelled, timed_out or lost");
    }
  }
  return states;
}

std::vector<std::string> split_list(std::string_view text)
{
  std::vector<std::string> parts;
  while (!text.empty()) {
    const auto comma = text.find(',');
    const auto part = text.substr(0, comma);
    if (!part.empty()) {
      parts.emplace_back(part);
    }
    if (comma == std::string_view::npos) {
      break;
    }
    text.remove_prefix(comma + 1);
  }
  return parts;
}

std::optional<po::variables_map>
parse_command_line_with_operand(const CommandSyntax& syntax, po::options_description options,
                                const char* name, const char* description,
                                const std::vector<std::string>& args)
{
  po::options_description hidden;
  hidden.add_options()(name, po::value<std::string>(), description);
  options.add(hidden);
  po::positional_options_description positional;
  positional.add(name, 1);
  return parse_command_line(syntax, options, positional, args);
}

std::optional<IdCommandLine> parse_id_command_line(const CommandSyntax& syntax,
                                                   po::options_description options, IdCount count,
                                                   const std::vector<std::string>& args)
{
  po::options_description hidden;
  hidden.add_options()("id", po::value<std::vector<std::string>>(),
                       count == IdCount::one ? "task ID" : "task IDs");
  options.add(hidden);
  po::positional_options_description positional;
  positional.add("id", count == IdCount::one ? 1 : -1);
  auto vm = parse_command_line(syntax, options, positional, args);
  if (!vm) {
    return std::nullopt;
  }
  auto ids = optional_value<std::vector<std::string>>(*vm, "id");
  if (!ids && count == IdCount::any) {
    ids.emplace();
  }
  if (!ids) {
    throw_usage("bgtask " + std::string(syntax.name) +
                (count == IdCount::one ? ": give a task ID" : ": give at least one task ID"));
  }
  // Malformed IDs are refused before the directory is touched (or created).
  for (const auto& id : *ids) {
    check_task_id_prefix(id);
  }
  return IdCommandLine{std::move(*vm), std::move(*ids)};
}

} // namespace bgtask
