#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace bgtask {

// The columns `text` (UTF-8, already escaped for display) takes on a
// terminal: wcwidth(3) of each code point under the C.UTF-8 locale, whatever
// the process's locale (2 for CJK and emoji, 0 for combining marks); a code
// point wcwidth does not know counts 1. Colour (SGR) sequences `ESC [ ... m`
// take no width.
std::size_t display_width(std::string_view text);

// `text` cut to at most `width` columns, ending in `…` if it was cut (never
// in the middle of a character or a colour sequence; an open colour is reset).
std::string truncate_to_width(std::string_view text, std::size_t width);

} // namespace bgtask
