#include <bgtask/util/display_width.hpp>

#include <clocale>
#include <cwchar>
#include <locale.h>

namespace bgtask {

namespace {

constexpr std::string_view k_ellipsis = "\u2026";

// The length of the SGR sequence at `text[at]`, or 0 if there is none.
std::size_t sgr_length(std::string_view text, std::size_t at)
{
  if (text[at] != '\x1b' || at + 1 >= text.size() || text[at + 1] != '[') {
    return 0;
  }
  const auto end = text.find('m', at + 2);
  return end == std::string_view::npos ? 0 : end - at + 1;
}

// Decodes the UTF-8 sequence at `text[at]` (valid, as escaped text is);
// sets `length`. A malformed byte decodes as itself, length 1.
char32_t decode(std::string_view text, std::size_t at, std::size_t& length)
{
  const auto lead = static_cast<unsigned char>(text[at]);
  length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
  if (lead < 0x80 || at + length > text.size()) {
    length = 1;
    return lead;
  }
  char32_t cp = lead & (0x3F >> (length - 1));
  for (std::size_t i = 1; i < length; ++i) {
    cp = (cp << 6) | (static_cast<unsigned char>(text[at + i]) & 0x3F);
  }
  return cp;
}

// wcwidth under C.UTF-8 for this thread (uselocale), restored afterwards;
// the locale is switched at the first code point beyond ASCII, so that
// plain text (most of a `list` table) pays nothing for it.
class Utf8Widths
{
public:
  Utf8Widths() = default;
  Utf8Widths(const Utf8Widths&) = delete;
  Utf8Widths& operator=(const Utf8Widths&) = delete;
  ~Utf8Widths()
  {
    if (m_previous != locale_t(nullptr)) {
      ::uselocale(m_previous);
    }
  }

  std::size_t of(char32_t cp)
  {
    if (cp < 0x80) {
      return cp >= 0x20 && cp != 0x7F ? 1 : 0;
    }
    if (!m_switched) {
      static const locale_t utf8 = ::newlocale(LC_CTYPE_MASK, "C.UTF-8", locale_t(nullptr));
      if (utf8 != locale_t(nullptr)) {
        m_previous = ::uselocale(utf8);
      }
      m_switched = true;
    }
    const int width = ::wcwidth(static_cast<wchar_t>(cp));
    return width < 0 ? 1 : static_cast<std::size_t>(width);
  }

private:
  locale_t m_previous = locale_t(nullptr);
  bool m_switched = false;
};

} // namespace

std::size_t display_width(std::string_view text)
{
  Utf8Widths widths;
  std::size_t width = 0;
  for (std::size_t i = 0; i < text.size();) {
    if (const auto sgr = sgr_length(text, i); sgr > 0) {
      i += sgr;
      continue;
    }
    std::size_t length = 0;
    width += widths.of(decode(text, i, length));
    i += length;
  }
  return width;
}

std::string truncate_to_width(std::string_view text, std::size_t width)
{
  if (display_width(text) <= width) {
    return std::string(text);
  }
  Utf8Widths widths;
  std::string out;
  bool coloured = false;
  std::size_t used = 0;
  const std::size_t room = width == 0 ? 0 : width - 1; // one column for the ellipsis
  for (std::size_t i = 0; i < text.size();) {
    if (const auto sgr = sgr_length(text, i); sgr > 0) {
      out.append(text.substr(i, sgr));
      coloured = true;
      i += sgr;
      continue;
    }
    std::size_t length = 0;
    const std::size_t w = widths.of(decode(text, i, length));
    if (used + w > room) {
      break;
    }
    out.append(text.substr(i, length));
    used += w;
    i += length;
  }
  if (width > 0) {
    out.append(k_ellipsis);
  }
  if (coloured) {
    out.append("\x1b[0m");
  }
  return out;
}

} // namespace bgtask
