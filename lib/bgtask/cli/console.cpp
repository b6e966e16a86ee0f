#include <bgtask/cli/console.hpp>
#include <bgtask/util/json_text.hpp>
#include <bgtask/util/terminal_escape.hpp>

#include <boost/json/serialize.hpp>

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sys/ioctl.h>
#include <unistd.h>

namespace bgtask {

bool stdout_is_terminal()
{
  static const bool tty = ::isatty(STDOUT_FILENO) == 1;
  return tty;
}

namespace {
ColorChoice g_color_choice = ColorChoice::automatic;
} // namespace

void choose_color(ColorChoice choice)
{
  g_color_choice = choice;
}

Color stdout_color()
{
  if (g_color_choice != ColorChoice::automatic) {
    return g_color_choice == ColorChoice::always ? Color::yes : Color::no;
  }
  const char* no_color = std::getenv("NO_COLOR");
  const char* term = std::getenv("TERM");
  const bool wanted = (no_color == nullptr || *no_color == '\0') &&
                      (term == nullptr || std::strcmp(term, "dumb") != 0);
  return wanted && stdout_is_terminal() ? Color::yes : Color::no;
}

std::optional<std::size_t> stdout_width()
{
  winsize size{};
  if (stdout_is_terminal() && ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) {
    return size.ws_col;
  }
  const char* columns = std::getenv("COLUMNS");
  if (columns != nullptr && *columns != '\0') {
    char* end = nullptr;
    const long value = std::strtol(columns, &end, 10);
    if (*end == '\0' && value > 0 && value < 100000) {
      return static_cast<std::size_t>(value);
    }
  }
  return std::nullopt;
}

std::string for_stdout(std::string_view text)
{
  return stdout_is_terminal() ? escape_for_terminal(text) : std::string(text);
}

void print_json(const boost::json::value& value)
{
  const auto text = json_text(value);
  std::cout << (stdout_is_terminal() ? escape_json_for_terminal(text) : text) << '\n';
}

} // namespace bgtask
