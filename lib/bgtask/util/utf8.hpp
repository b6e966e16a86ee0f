#pragma once

#include <string>
#include <string_view>

namespace bgtask {

// True if `text` is well-formed UTF-8 (no overlongs, no surrogates, <= U+10FFFF).
bool is_valid_utf8(std::string_view text);

// Returns `text` if it is valid UTF-8; otherwise a valid UTF-8 string in which
// every byte that is not part of a valid sequence is written as `\xNN`.
// Records store argv, cwd and names through this so they always parse.
std::string to_valid_utf8(std::string_view text);

} // namespace bgtask
