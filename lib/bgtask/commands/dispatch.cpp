#include <bgtask/cli/argv_secrets.hpp>
#include <bgtask/cli/command.hpp>
#include <bgtask/cli/command_line.hpp>
#include <bgtask/cli/console.hpp>
#include <bgtask/cli/global_options.hpp>
#include <bgtask/cli/option_help.hpp>
#include <bgtask/commands/dispatch.hpp>
#include <bgtask/commands/table.hpp>
#include <bgtask/proc/caller_umask.hpp>
#include <bgtask/proc/standard_streams.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/spelling.hpp>
#include <bgtask/util/terminal_escape.hpp>

#include <algorithm>
#include <array>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <optional>
#include <unistd.h>

namespace bgtask {

namespace {

void print_help(std::ostream& out)
{
  out << "usage: bgtask [GLOBAL OPTIONS] COMMAND [ARGS...]\n\n"
         "Runs commands in the background and keeps each task's state in plain files.\n\n"
         "Commands:\n";
  for (const auto& command : all_commands()) {
    if (is_hidden(command)) {
      continue;
    }
    out << "  " << std::left << std::setw(10) << command.name << command.summary << '\n';
  }
  out << '\n' << format_option_help(global_options(), "Global options");
}

// Words other background-job tools use for a bgtask command.
struct PeerWord
{
  std::string_view word;
  std::string_view command;
};
constexpr std::array<PeerWord, 13> k_peer_words{{{"rm", "cleanup"},
                                                 {"remove", "cleanup"},
                                                 {"restart", "rerun"},
                                                 {"retry", "rerun"},
                                                 {"log", "output"},
                                                 {"logs", "output"},
                                                 {"tail", "output"},
                                                 {"follow", "output"},
                                                 {"show", "output"},
                                                 {"kill", "cancel"},
                                                 {"stop", "cancel"},
                                                 {"ps", "list"},
                                                 {"ls", "list"}}};

// The command `name` most likely meant: a peer tool's word for it, else the
// nearest visible command by spelling.
std::optional<std::string_view> meant_command(std::string_view name)
{
  for (const auto& peer : k_peer_words) {
    if (peer.word == name) {
      return peer.command;
    }
  }
  std::vector<std::string_view> names;
  for (const auto& command : all_commands()) {
    if (!is_hidden(command)) {
      names.emplace_back(command.name);
    }
  }
  return nearest_spelling(name, names);
}

[[noreturn]] void unknown_command(const std::string& name)
{
  std::string message = "unknown command '" + escape_for_terminal(name, KeepNewlines::no) + "'";
  if (const auto meant = meant_command(name)) {
    message += "; did you mean '" + std::string(*meant) + "'?";
  }
  throw_usage(message + " (see bgtask --help)");
}

int dispatch(const std::vector<std::string>& args)
{
  GlobalOptions global;
  std::vector<std::string> rest = args;
  take_leading_global_options(rest, global);
  if (global.version) {
    std::cout << "bgtask " << BGTASK_VERSION << '\n';
    return 0;
  }
  if (global.help) {
    print_help(std::cout);
    return 0;
  }
  if (rest.empty()) {
    print_help(std::cerr);
    return static_cast<int>(ExitCode::usage);
  }
  std::string name = rest.front();
  rest.erase(rest.begin());
  if (name == "help") {
    if (rest.empty()) {
      print_help(std::cout);
      return 0;
    }
    name = rest.front();
    rest = {"--help"};
  }
  const Command* command = find_command(all_commands(), name);
  if (command == nullptr) {
    unknown_command(name);
  }
  if (!is_hidden(*command)) {
    take_trailing_global_options(rest, global);
  }
  if (global.color) {
    choose_color(*global.color);
  }
  const auto parsed = parse_command_args(*command, rest);
  return parsed ? command->handler(global, *parsed) : 0;
}

void print_error(const std::string& message)
{
  const bool tty = ::isatty(STDERR_FILENO) == 1;
  std::cerr << "bgtask: error: " << (tty ? escape_for_terminal(message) : message) << std::endl;
}

} // namespace

int run_cli(int argc, char** argv)
{
  // Before anything is opened: a descriptor bgtask opens must never become
  // someone's stdin, stdout or stderr.
  if (const int err = open_missing_standard_streams(); err != 0) {
    print_error(std::string("cannot open /dev/null for a closed standard stream: ") +
                std::strerror(err));
    return static_cast<int>(ExitCode::failure);
  }
  restrict_umask();
  std::vector<std::string> args(argv + 1, argv + argc);
  hide_env_values(argc, argv); // the copy above keeps them
  try {
    return dispatch(args);
  } catch (const Error& e) {
    print_error(e.what());
    return static_cast<int>(e.code());
  } catch (const std::exception& e) {
    print_error(e.what());
    return static_cast<int>(ExitCode::failure);
  }
}

} // namespace bgtask
