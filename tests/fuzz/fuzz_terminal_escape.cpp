// The terminal escaper on arbitrary bytes: its output must be valid UTF-8
// with no control byte other than `\t` (and `\n` when kept), no DEL, no C1
// code point and no bidi override. The JSON variant must leave no raw DEL
// or C1 byte, and no C1 character or bidi override in valid UTF-8.

#include <bgtask/util/terminal_escape.hpp>
#include <bgtask/util/utf8.hpp>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

bool contains(std::string_view text, std::string_view part)
{
  return text.find(part) != std::string_view::npos;
}

bool has_c1_or_bidi(std::string_view text)
{
  for (unsigned char second = 0x80; second <= 0x9f; ++second) {
    if (contains(text, std::string{'\xc2', static_cast<char>(second)})) {
      return true;
    }
  }
  for (const std::string_view bidi :
       {"\xe2\x80\xaa", "\xe2\x80\xab", "\xe2\x80\xac", "\xe2\x80\xad", "\xe2\x80\xae",
        "\xe2\x81\xa6", "\xe2\x81\xa7", "\xe2\x81\xa8", "\xe2\x81\xa9"}) {
    if (contains(text, bidi)) {
      return true;
    }
  }
  return false;
}

void check_escaped(std::string_view text, bgtask::KeepNewlines newlines)
{
  const std::string out = bgtask::escape_for_terminal(text, newlines);
  for (const char c : out) {
    const auto byte = static_cast<unsigned char>(c);
    const bool allowed = c == '\t' || (c == '\n' && newlines == bgtask::KeepNewlines::yes);
    if ((byte < 0x20 && !allowed) || byte == 0x7f) {
      std::abort();
    }
  }
  if (!bgtask::is_valid_utf8(out) || has_c1_or_bidi(out)) {
    std::abort();
  }
  if (bgtask::is_valid_utf8(text) && !has_c1_or_bidi(text) && out.size() < text.size()) {
    std::abort();
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  check_escaped(text, bgtask::KeepNewlines::yes);
  check_escaped(text, bgtask::KeepNewlines::no);

  const std::string json = bgtask::escape_json_for_terminal(text);
  if (bgtask::is_valid_utf8(text) && has_c1_or_bidi(json)) {
    std::abort();
  }
  for (std::size_t pos = 0; pos < json.size(); ++pos) {
    const auto byte = static_cast<unsigned char>(json[pos]);
    if (byte == 0x7f) {
      std::abort();
    }
    if (byte == 0xc2 && pos + 1 < json.size() &&
        static_cast<unsigned char>(json[pos + 1]) <= 0x9f &&
        static_cast<unsigned char>(json[pos + 1]) >= 0x80) {
      std::abort();
    }
  }
  return 0;
}
