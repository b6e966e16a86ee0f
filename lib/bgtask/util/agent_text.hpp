#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace bgtask {

// Output turned into text for a program that reads it (JSON, MCP): valid
// UTF-8 in which what a terminal would have done with control characters is
// already done, so a reader sees the text a person saw.
struct AgentText
{
  std::string text;
  std::size_t replaced = 0; // bytes that were not valid UTF-8, each now U+FFFD
  std::size_t removed = 0;  // bytes of control sequences and overdrawn text left out
};

enum class Controls {
  strip, // escape sequences and control characters go; `\r` redraws apply
  keep,  // every character stays (JSON escapes the controls)
};

// Converts `bytes` (any binary data). With Controls::strip: `\n` and `\t`
// stay; `\r\n` becomes `\n`; a bare `\r` drops the text before it back to
// the last newline of `bytes` (a redrawn progress line keeps its last
// state); ESC sequences (CSI, OSC, DCS, SOS, PM, APC and two-byte ones),
// other C0 controls, DEL and C1 code points are removed. In both modes each
// byte that is not part of valid UTF-8 becomes U+FFFD.
AgentText to_agent_text(std::string_view bytes, Controls controls);

// How many bytes at the end of `bytes` a reader of a growing stream should
// hold back so as not to split what more bytes could complete: a UTF-8
// sequence, an escape sequence begun in the last 256 bytes, or a final `\r`.
std::size_t unfinished_text_tail(std::string_view bytes);

} // namespace bgtask
