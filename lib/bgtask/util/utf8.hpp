#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace bgtask {

// True if `text` is well-formed UTF-8 (no overlongs, no surrogates, <= U+10FFFF).
bool is_valid_utf8(std::string_view text);

// Returns `text` if it is valid UTF-8; otherwise a valid UTF-8 string in which
// every byte that is not part of a valid sequence is written as `\xNN`.
// Records store argv, cwd and names through this so they always parse.
std::string to_valid_utf8(std::string_view text);

// The length of the well-formed UTF-8 sequence at `text[pos]`, or 0 if the
// byte there does not start one (or the sequence is cut off by the end).
std::size_t utf8_sequence_length(std::string_view text, std::size_t pos);

// How many bytes at the end of `bytes` begin a UTF-8 sequence that more
// bytes could still complete (0 to 3): a reader of a growing stream holds
// them back instead of splitting the character.
std::size_t incomplete_utf8_tail(std::string_view bytes);

} // namespace bgtask
