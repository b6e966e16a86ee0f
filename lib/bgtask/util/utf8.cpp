#include <bgtask/util/utf8.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdio>

namespace bgtask {

namespace {

struct LeadByte
{
  std::size_t length;
  unsigned char second_min;
  unsigned char second_max;
};

// The sequence length and the allowed range of the second byte for `lead`
// (length 0 if `lead` cannot start a sequence). The narrowed second-byte
// ranges exclude overlongs (E0, F0), surrogates (ED) and code points above
// U+10FFFF (F4).
LeadByte classify_lead_byte(unsigned char lead)
{
  if (lead < 0x80) {
    return {1, 0, 0};
  }
  if (lead >= 0xc2 && lead <= 0xdf) {
    return {2, 0x80, 0xbf};
  }
  if (lead == 0xe0) {
    return {3, 0xa0, 0xbf};
  }
  if (lead == 0xed) {
    return {3, 0x80, 0x9f};
  }
  if (lead >= 0xe1 && lead <= 0xef) {
    return {3, 0x80, 0xbf};
  }
  if (lead == 0xf0) {
    return {4, 0x90, 0xbf};
  }
  if (lead >= 0xf1 && lead <= 0xf3) {
    return {4, 0x80, 0xbf};
  }
  if (lead == 0xf4) {
    return {4, 0x80, 0x8f};
  }
  return {0, 0, 0};
}

// The length of the well-formed sequence starting at `text[pos]`, or 0.
std::size_t valid_sequence_length(std::string_view text, std::size_t pos)
{
  const LeadByte lead = classify_lead_byte(static_cast<unsigned char>(text[pos]));
  if (lead.length == 0 || text.size() - pos < lead.length) {
    return 0;
  }
  if (lead.length == 1) {
    return 1;
  }
  const auto second = static_cast<unsigned char>(text[pos + 1]);
  if (second < lead.second_min || second > lead.second_max) {
    return 0;
  }
  for (std::size_t i = 2; i < lead.length; ++i) {
    const auto byte = static_cast<unsigned char>(text[pos + i]);
    if (byte < 0x80 || byte > 0xbf) {
      return 0;
    }
  }
  return lead.length;
}

} // namespace

std::size_t utf8_sequence_length(std::string_view text, std::size_t pos)
{
  return valid_sequence_length(text, pos);
}

std::size_t incomplete_utf8_tail(std::string_view bytes)
{
  const std::size_t look = std::min<std::size_t>(3, bytes.size());
  for (std::size_t back = 1; back <= look; ++back) {
    const auto byte = static_cast<unsigned char>(bytes[bytes.size() - back]);
    if ((byte & 0xC0) == 0x80) {
      continue;
    }
    const std::size_t need = classify_lead_byte(byte).length;
    return need > back ? back : 0;
  }
  return 0;
}

namespace {

void append_hex_escape(std::string& out, unsigned char byte)
{
  char buffer[5];
  std::snprintf(buffer, sizeof buffer, "\\x%02x", byte);
  out.append(buffer, 4);
}

} // namespace

bool is_valid_utf8(std::string_view text)
{
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t length = valid_sequence_length(text, pos);
    if (length == 0) {
      return false;
    }
    pos += length;
  }
  return true;
}

std::string to_valid_utf8(std::string_view text)
{
  if (is_valid_utf8(text)) {
    return std::string(text);
  }
  std::string out;
  out.reserve(text.size() + 16);
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t length = valid_sequence_length(text, pos);
    if (length == 0) {
      append_hex_escape(out, static_cast<unsigned char>(text[pos]));
      ++pos;
    } else {
      out.append(text.substr(pos, length));
      pos += length;
    }
  }
  return out;
}

} // namespace bgtask
