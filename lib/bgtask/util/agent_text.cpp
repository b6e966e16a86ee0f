#include <bgtask/util/agent_text.hpp>
#include <bgtask/util/utf8.hpp>

#include <algorithm>

namespace bgtask {

namespace {

constexpr char k_esc = '\x1b';
constexpr std::string_view k_replacement = "\xef\xbf\xbd";
constexpr std::size_t k_max_held_escape = 256;

// The length of the escape sequence at `bytes[pos]` (an ESC), or 0 if
// `bytes` ends before the sequence does.
std::size_t escape_length(std::string_view bytes, std::size_t pos)
{
  if (pos + 1 >= bytes.size()) {
    return 0;
  }
  const char kind = bytes[pos + 1];
  if (kind == '[') { // CSI: parameters and intermediates, then a final byte 0x40-0x7e
    for (std::size_t i = pos + 2; i < bytes.size(); ++i) {
      const auto c = static_cast<unsigned char>(bytes[i]);
      if (c >= 0x40 && c <= 0x7e) {
        return i - pos + 1;
      }
      if (c < 0x20 || c > 0x3f) {
        return i - pos; // malformed: end it before the stray byte
      }
    }
    return 0;
  }
  if (kind == ']' || kind == 'P' || kind == 'X' || kind == '^' || kind == '_') {
    // A string: ends with BEL or ST (ESC \).
    for (std::size_t i = pos + 2; i < bytes.size(); ++i) {
      if (bytes[i] == '\a') {
        return i - pos + 1;
      }
      if (bytes[i] == k_esc && i + 1 < bytes.size()) {
        return i - pos + (bytes[i + 1] == '\\' ? 2 : 0);
      }
    }
    return 0;
  }
  std::size_t i = pos + 1; // nF: intermediates 0x20-0x2f, then one final byte
  while (i < bytes.size() && bytes[i] >= 0x20 && bytes[i] <= 0x2f) {
    ++i;
  }
  return i < bytes.size() ? i - pos + 1 : 0;
}

// Drops the text of the current line (after the last newline of `out`).
void carriage_return(AgentText& result)
{
  const auto newline = result.text.rfind('\n');
  const std::size_t keep = newline == std::string::npos ? 0 : newline + 1;
  result.removed += result.text.size() - keep;
  result.text.resize(keep);
}

// Handles the control character or sequence at `bytes[pos]` in strip mode;
// returns how many bytes it took.
std::size_t strip_control(std::string_view bytes, std::size_t pos, AgentText& result)
{
  const char c = bytes[pos];
  if (c == '\r') {
    if (pos + 1 < bytes.size() && bytes[pos + 1] == '\n') {
      ++result.removed;
      return 1;
    }
    carriage_return(result);
    ++result.removed;
    return 1;
  }
  std::size_t length = 1;
  if (c == k_esc) {
    length = escape_length(bytes, pos);
    if (length == 0) {
      length = bytes.size() - pos; // cut off by the end: all of it goes
    }
  }
  result.removed += length;
  return length;
}

bool is_stripped_control(std::string_view bytes, std::size_t pos, std::size_t length)
{
  const auto c = static_cast<unsigned char>(bytes[pos]);
  if (length == 1) {
    return (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f;
  }
  // C1 controls: U+0080-U+009F, encoded C2 80 .. C2 9F.
  return length == 2 && c == 0xc2 && static_cast<unsigned char>(bytes[pos + 1]) <= 0x9f;
}

} // namespace

AgentText to_agent_text(std::string_view bytes, Controls controls)
{
  AgentText result;
  result.text.reserve(bytes.size());
  std::size_t pos = 0;
  while (pos < bytes.size()) {
    const std::size_t length = utf8_sequence_length(bytes, pos);
    if (length == 0) {
      result.text.append(k_replacement);
      ++result.replaced;
      ++pos;
      continue;
    }
    if (controls == Controls::strip && is_stripped_control(bytes, pos, length)) {
      pos += length == 1 ? strip_control(bytes, pos, result) : length;
      result.removed += length == 1 ? 0 : length;
      continue;
    }
    result.text.append(bytes.substr(pos, length));
    pos += length;
  }
  return result;
}

std::size_t unfinished_text_tail(std::string_view bytes)
{
  const std::size_t utf8 = incomplete_utf8_tail(bytes);
  if (utf8 > 0) {
    return utf8;
  }
  if (!bytes.empty() && bytes.back() == '\r') {
    return 1;
  }
  const std::size_t from = bytes.size() > k_max_held_escape ? bytes.size() - k_max_held_escape : 0;
  const auto esc = bytes.find_last_of(k_esc);
  if (esc != std::string_view::npos && esc >= from && escape_length(bytes, esc) == 0) {
    return bytes.size() - esc;
  }
  return 0;
}

} // namespace bgtask
