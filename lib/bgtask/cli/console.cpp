#include <bgtask/cli/console.hpp>
#include <bgtask/util/terminal_escape.hpp>

#include <boost/json/serialize.hpp>

#include <cstdlib>
#include <iostream>
#include <unistd.h>

namespace bgtask {

bool stdout_is_terminal()
{
  static const bool tty = ::isatty(STDOUT_FILENO) == 1;
  return tty;
}

Color stdout_color()
{
  const char* no_color = std::getenv("NO_COLOR");
  const bool wanted = no_color == nullptr || *no_color == '\0';
  return wanted && stdout_is_terminal() ? Color::yes : Color::no;
}

std::string for_stdout(std::string_view text)
{
  return stdout_is_terminal() ? escape_for_terminal(text) : std::string(text);
}

void print_json(const boost::json::value& value)
{
  const auto text = boost::json::serialize(value);
  std::cout << (stdout_is_terminal() ? escape_json_for_terminal(text) : text) << '\n';
}

} // namespace bgtask
