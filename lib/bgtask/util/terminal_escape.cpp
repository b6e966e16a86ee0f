#include <bgtask/util/terminal_escape.hpp>
#include <bgtask/util/utf8.hpp>

#include <cstddef>

namespace bgtask {

namespace {

constexpr char k_hex_digits[] = "0123456789abcdef";

unsigned char byte_at(std::string_view text, std::size_t pos)
{
  return static_cast<unsigned char>(text[pos]);
}

// The length of the well-formed multi-byte UTF-8 sequence at `text[pos]`, or
// 0. The shortest valid prefix is the sequence itself, because no proper
// prefix of a multi-byte sequence is valid.
std::size_t multibyte_length_at(std::string_view text, std::size_t pos)
{
  for (std::size_t length = 2; length <= 4 && pos + length <= text.size(); ++length) {
    if (is_valid_utf8(text.substr(pos, length))) {
      return length;
    }
  }
  return 0;
}

// The length of the character at `text[pos]`: 1 for ASCII, the sequence
// length for valid UTF-8, 0 for a byte that starts no valid sequence.
std::size_t character_length_at(std::string_view text, std::size_t pos)
{
  return byte_at(text, pos) < 0x80 ? 1 : multibyte_length_at(text, pos);
}

bool is_c1_control(std::string_view character)
{
  return character.size() == 2 && byte_at(character, 0) == 0xc2 && byte_at(character, 1) <= 0x9f;
}

// U+202A-U+202E (E2 80 AA-AE) and U+2066-U+2069 (E2 81 A6-A9).
bool is_bidi_override(std::string_view character)
{
  if (character.size() != 3 || byte_at(character, 0) != 0xe2) {
    return false;
  }
  const unsigned char second = byte_at(character, 1);
  const unsigned char third = byte_at(character, 2);
  return (second == 0x80 && third >= 0xaa && third <= 0xae) ||
         (second == 0x81 && third >= 0xa6 && third <= 0xa9);
}

bool is_unsafe_for_terminal(std::string_view character, KeepNewlines newlines)
{
  if (character.size() == 1) {
    const unsigned char byte = byte_at(character, 0);
    if (byte == '\t' || (byte == '\n' && newlines == KeepNewlines::yes)) {
      return false;
    }
    return byte < 0x20 || byte == 0x7f;
  }
  return is_c1_control(character) || is_bidi_override(character);
}

void append_hex_escapes(std::string& out, std::string_view bytes)
{
  for (const char c : bytes) {
    const auto byte = static_cast<unsigned char>(c);
    out += "\\x";
    out += k_hex_digits[byte >> 4];
    out += k_hex_digits[byte & 0xf];
  }
}

// Appends `\uNNNN` for a code point below U+10000.
void append_json_escape(std::string& out, unsigned int code_point)
{
  out += "\\u";
  for (int shift = 12; shift >= 0; shift -= 4) {
    out += k_hex_digits[(code_point >> shift) & 0xf];
  }
}

// The code point of a three-byte UTF-8 sequence.
unsigned int three_byte_code_point(std::string_view character)
{
  return (byte_at(character, 0) & 0x0fU) << 12 | (byte_at(character, 1) & 0x3fU) << 6 |
         (byte_at(character, 2) & 0x3fU);
}

} // namespace

std::string escape_for_terminal(std::string_view text, KeepNewlines newlines)
{
  std::string out;
  out.reserve(text.size());
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t length = character_length_at(text, pos);
    if (length == 0) {
      append_hex_escapes(out, text.substr(pos, 1));
      ++pos;
      continue;
    }
    const std::string_view character = text.substr(pos, length);
    if (is_unsafe_for_terminal(character, newlines)) {
      append_hex_escapes(out, character);
    } else {
      out.append(character);
    }
    pos += length;
  }
  return out;
}

namespace {

constexpr std::size_t k_max_sgr = 64; // longer ones are not passed

// The length of the SGR sequence at `text[pos]` (an ESC), or 0.
std::size_t sgr_length_at(std::string_view text, std::size_t pos)
{
  if (pos + 2 >= text.size() || text[pos + 1] != '[') {
    return 0;
  }
  for (std::size_t i = pos + 2; i < text.size() && i - pos < k_max_sgr; ++i) {
    const char c = text[i];
    if (c == 'm') {
      return i - pos + 1;
    }
    if ((c < '0' || c > '9') && c != ';' && c != ':') {
      return 0;
    }
  }
  return 0;
}

} // namespace

std::string render_for_terminal(std::string_view text)
{
  std::string out;
  out.reserve(text.size());
  std::size_t pos = 0;
  while (pos < text.size()) {
    const char c = text[pos];
    if (c == '\r') {
      out += c;
      ++pos;
      continue;
    }
    if (c == '\x1b') {
      if (const std::size_t length = sgr_length_at(text, pos); length != 0) {
        out.append(text.substr(pos, length));
        pos += length;
        continue;
      }
    }
    std::size_t next = pos + 1;
    while (next < text.size() && text[next] != '\r' && text[next] != '\x1b') {
      ++next;
    }
    out += escape_for_terminal(text.substr(pos, next - pos));
    pos = next;
  }
  return out;
}

std::size_t incomplete_sgr_tail(std::string_view text)
{
  const std::size_t esc = text.rfind('\x1b');
  if (esc == std::string_view::npos || text.size() - esc >= k_max_sgr) {
    return 0;
  }
  const std::string_view tail = text.substr(esc);
  if (tail.size() == 1) {
    return 1;
  }
  if (tail[1] != '[') {
    return 0;
  }
  for (std::size_t i = 2; i < tail.size(); ++i) {
    if ((tail[i] < '0' || tail[i] > '9') && tail[i] != ';' && tail[i] != ':') {
      return 0;
    }
  }
  return tail.size();
}

// A stray byte 0x80-0x9F (invalid UTF-8, so not from a well-formed
// serializer) is a C1 control to 8-bit terminals; it is rewritten as the
// code point of the same value.
std::string escape_json_for_terminal(std::string_view json)
{
  std::string out;
  out.reserve(json.size());
  std::size_t pos = 0;
  while (pos < json.size()) {
    const unsigned char byte = byte_at(json, pos);
    const std::size_t length = character_length_at(json, pos);
    if (byte == 0x7f || (length == 0 && byte <= 0x9f)) {
      append_json_escape(out, byte);
      ++pos;
    } else if (length == 0) {
      out += json[pos];
      ++pos;
    } else if (is_c1_control(json.substr(pos, length))) {
      append_json_escape(out, byte_at(json, pos + 1));
      pos += length;
    } else if (is_bidi_override(json.substr(pos, length))) {
      append_json_escape(out, three_byte_code_point(json.substr(pos, length)));
      pos += length;
    } else {
      out.append(json.substr(pos, length));
      pos += length;
    }
  }
  return out;
}

std::string escape_table_cell(std::string_view text)
{
  const std::string escaped = escape_for_terminal(text, KeepNewlines::no);
  std::string out;
  out.reserve(escaped.size());
  for (const char c : escaped) {
    out += c == '\t' ? std::string("\\x09") : std::string(1, c);
  }
  return out;
}

} // namespace bgtask
