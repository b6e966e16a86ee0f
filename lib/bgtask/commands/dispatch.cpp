#include <bgtask/cli/command.hpp>
#include <bgtask/commands/dispatch.hpp>
#include <bgtask/proc/caller_umask.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/terminal_escape.hpp>

#include <algorithm>
#include <iomanip>
#include <iostream>
#include <unistd.h>

namespace bgtask {

namespace {

void print_help(std::ostream& out)
{
  out << "usage: bgtask [--dir DIR] COMMAND [ARGS...]\n\n"
         "Runs commands in the background and keeps each task's state in plain files.\n\n"
         "Commands:\n";
  for (const auto& command : all_commands()) {
    if (is_hidden(command)) {
      continue;
    }
    out << "  " << std::left << std::setw(10) << command.name << command.summary << '\n';
  }
  out << "\nGlobal options:\n"
         "  --dir DIR    task directory (default: $BGTASK_DIR, $XDG_STATE_HOME/bgtask,\n"
         "               or ~/.local/state/bgtask)\n"
         "  --help       show this help; `bgtask COMMAND --help` shows a command's\n"
         "  --version    show the version\n";
}

std::size_t edit_distance(std::string_view a, std::string_view b)
{
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) {
    row[j] = j;
  }
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

[[noreturn]] void unknown_command(const std::string& name)
{
  std::string message = "unknown command '" + name + "'";
  for (const auto& command : all_commands()) {
    if (edit_distance(name, command.name) <= 2) {
      message += "; did you mean '" + std::string(command.name) + "'?";
      break;
    }
  }
  throw_usage(message + " (see bgtask --help)");
}

int dispatch(const std::vector<std::string>& args)
{
  GlobalOptions global;
  std::size_t i = 0;
  for (; i < args.size() && args[i].starts_with('-'); ++i) {
    const auto& arg = args[i];
    if (arg == "--dir") {
      if (i + 1 == args.size()) {
        throw_usage("option '--dir' requires an argument");
      }
      global.dir = args[++i];
    } else if (arg.starts_with("--dir=")) {
      global.dir = arg.substr(6);
    } else if (arg == "--version") {
      std::cout << "bgtask " << BGTASK_VERSION << '\n';
      return 0;
    } else if (arg == "--help" || arg == "-h") {
      print_help(std::cout);
      return 0;
    } else {
      throw_usage("unknown option '" + arg + "' (see bgtask --help)");
    }
  }
  if (i == args.size()) {
    print_help(std::cerr);
    return static_cast<int>(ExitCode::usage);
  }
  std::string name = args[i];
  std::vector<std::string> rest(args.begin() + static_cast<long>(i) + 1, args.end());
  if (name == "help") {
    if (rest.empty()) {
      print_help(std::cout);
      return 0;
    }
    name = rest.front();
    rest = {"--help"};
  }
  const Command* command = find_command(name);
  if (command == nullptr) {
    unknown_command(name);
  }
  return command->handler(global, rest);
}

void print_error(const std::string& message)
{
  const bool tty = ::isatty(STDERR_FILENO) == 1;
  std::cerr << "bgtask: error: " << (tty ? escape_for_terminal(message) : message) << std::endl;
}

} // namespace

int run_cli(int argc, char** argv)
{
  restrict_umask();
  try {
    return dispatch(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const Error& e) {
    print_error(e.what());
    return static_cast<int>(e.code());
  } catch (const std::exception& e) {
    print_error(e.what());
    return static_cast<int>(ExitCode::failure);
  }
}

} // namespace bgtask
