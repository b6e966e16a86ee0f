#include <bgtask/command_line.hpp>

#include <bgtask/error.hpp>
#include <bgtask/task_state.hpp>
#include <bgtask/terminal_escape.hpp>

#include <iostream>

namespace bgtask {

std::optional<po::variables_map> parse_command_line(const CommandSyntax& syntax,
                                                    po::options_description options,
                                                    const po::positional_options_description& positional,
                                                    const std::vector<std::string>& args)
{
  options.add_options()("help,h", "show this help");
  po::options_description all;
  all.add(options);
  po::variables_map vm;
  try {
    const auto style = po::command_line_style::default_style & ~po::command_line_style::allow_guessing;
    po::store(po::command_line_parser(args).options(all).positional(positional).style(style).run(), vm);
    if (vm.count("help") != 0) {
      std::cout << "usage: bgtask " << syntax.name << ' ' << syntax.usage << "\n\n"
                << syntax.summary << "\n\n"
                << options;
      return std::nullopt;
    }
    po::notify(vm);
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

} // namespace bgtask
