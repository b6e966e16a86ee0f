#pragma once

#include <string>
#include <string_view>

namespace bgtask {

enum class KeepNewlines { yes, no };

// Makes `text` safe to show on a terminal: every C0 control byte except
// `\t` (and `\n` when `newlines` is yes), DEL, every C1 code point
// (U+0080-U+009F), bidi overrides (U+202A-U+202E, U+2066-U+2069) and every
// byte that is not part of valid UTF-8 is written visibly as `\xNN` (for
// code points, one `\xNN` per UTF-8 byte). A literal backslash is kept as is.
// Valid printable UTF-8 passes through unchanged.
std::string escape_for_terminal(std::string_view text, KeepNewlines newlines = KeepNewlines::yes);

// Output shown on a terminal as `less -R` shows it: SGR sequences (colours,
// bold: ESC [ digits ; ... m) and carriage returns pass, so colours show
// and a `\r` progress line redraws; everything else escape_for_terminal
// escapes (cursor moves, titles, OSC, a lone ESC) stays escaped.
std::string render_for_terminal(std::string_view text);

// How many bytes at the end of `text` may begin an SGR sequence not yet
// complete (ESC, `ESC [`, `ESC [ 1 ;`): held back until the next chunk.
std::size_t incomplete_sgr_tail(std::string_view text);

// escape_for_terminal without newlines, and with `\t` escaped too: what a
// table cell may hold, on a terminal or not, so no name or argument can
// break a row or forge one.
std::string escape_table_cell(std::string_view text);

// Rewrites DEL, C1 characters and bidi overrides inside serialized JSON as
// `\u007f`, `\u0080`..`\u009f` and `\u202a`.. so JSON printed to a terminal
// carries no raw controls.
std::string escape_json_for_terminal(std::string_view json);

} // namespace bgtask
