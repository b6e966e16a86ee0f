#pragma once

#include <bgtask/cli/color_choice.hpp>

#include <boost/json/value.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace bgtask {

// True if standard output is a terminal (checked once).
bool stdout_is_terminal();

// Whether output may carry colour (SGR) sequences.
enum class Color { no, yes };

// Sets what stdout_color answers for the rest of the process (dispatch calls
// it once, for --color).
void choose_color(ColorChoice choice);

// Color::yes for --color=always, Color::no for --color=never; otherwise
// (auto) Color::yes if standard output is a terminal, NO_COLOR is unset or
// empty (https://no-color.org) and TERM is not `dumb`.
Color stdout_color();

// The width tables must fit in: the terminal's columns (TIOCGWINSZ) when
// stdout is one, else $COLUMNS when it is a positive number, else nullopt
// (no limit: a pipe gets every character).
std::optional<std::size_t> stdout_width();

// `text` as it may be shown on standard output: escaped (terminal_escape.hpp)
// when stdout is a terminal, unchanged otherwise.
std::string for_stdout(std::string_view text);

// Prints `value` as one line of compact JSON on stdout; on a terminal, DEL
// and C1 characters are escaped too.
void print_json(const boost::json::value& value);

} // namespace bgtask
