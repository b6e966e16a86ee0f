#include <bgtask/util/terminal_escape.hpp>
#include <bgtask/util/utf8.hpp>

#include <gtest/gtest.h>

#include <random>
#include <string>

using bgtask::escape_for_terminal;
using bgtask::escape_json_for_terminal;
using bgtask::KeepNewlines;

namespace {

bool contains(std::string_view text, std::string_view part)
{
  return text.find(part) != std::string_view::npos;
}

// Every byte value, plus the multi-byte sequences the escaper must treat
// specially, so random strings hit them often.
std::string random_text(std::mt19937& random)
{
  static const std::string_view k_pieces[] = {
    "\xc2\x9b",     "\xc2\x85",         "\xe2\x80\xae", "\xe2\x81\xa6",    "\xc3\xa9",
    "\xe6\x97\xa5", "\xf0\x9f\x98\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80"};
  std::uniform_int_distribution<int> length(0, 40);
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_int_distribution<int> piece(0, static_cast<int>(std::size(k_pieces)) * 4);
  std::string text;
  for (int i = length(random); i > 0; --i) {
    const auto index = static_cast<std::size_t>(piece(random));
    if (index < std::size(k_pieces)) {
      text += k_pieces[index];
    } else {
      text += static_cast<char>(byte(random));
    }
  }
  return text;
}

void expect_safe_for_terminal(std::string_view text, KeepNewlines newlines)
{
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    const bool allowed_control = c == '\t' || (c == '\n' && newlines == KeepNewlines::yes);
    ASSERT_TRUE((byte >= 0x20 && byte != 0x7f) || allowed_control)
      << "byte " << int{byte} << " in " << text;
  }
  ASSERT_TRUE(bgtask::is_valid_utf8(text)) << text;
  for (unsigned char second = 0x80; second <= 0x9f; ++second) {
    ASSERT_FALSE(contains(text, std::string{'\xc2', static_cast<char>(second)})) << text;
  }
  ASSERT_FALSE(contains(text, "\xe2\x80\xae")) << text;
  ASSERT_FALSE(contains(text, "\xe2\x81\xa6")) << text;
}

} // namespace

TEST(TerminalEscape, EscapesOsc52ClipboardWrites)
{
  EXPECT_EQ(escape_for_terminal("\x1b]52;c;SGVsbG8=\x07"), "\\x1b]52;c;SGVsbG8=\\x07");
}

TEST(TerminalEscape, EscapesCsiSequences)
{
  EXPECT_EQ(escape_for_terminal("\x1b[2J"), "\\x1b[2J");
}

TEST(TerminalEscape, EscapesRawC1Bytes)
{
  EXPECT_EQ(escape_for_terminal("a\x9b"
                                "2J"),
            "a\\x9b2J");
}

TEST(TerminalEscape, EscapesC1CodePointsEncodedAsUtf8)
{
  EXPECT_EQ(escape_for_terminal("\xc2\x9b"
                                "2J"),
            "\\xc2\\x9b2J");
  EXPECT_EQ(escape_for_terminal("\xc2\x80\xc2\x9f"), "\\xc2\\x80\\xc2\\x9f");
}

TEST(TerminalEscape, KeepsTheFirstCodePointAfterC1)
{
  EXPECT_EQ(escape_for_terminal("\xc2\xa0"), "\xc2\xa0");
}

TEST(TerminalEscape, EscapesCarriageReturnAndOtherC0Controls)
{
  EXPECT_EQ(escape_for_terminal("done\rfake"), "done\\x0dfake");
  EXPECT_EQ(escape_for_terminal(std::string_view("a\0b", 3)), "a\\x00b");
  EXPECT_EQ(escape_for_terminal("\x08\x1f"), "\\x08\\x1f");
}

TEST(TerminalEscape, EscapesDelete)
{
  EXPECT_EQ(escape_for_terminal("a\x7f"), "a\\x7f");
}

TEST(TerminalEscape, EscapesInvalidUtf8ByteByByte)
{
  EXPECT_EQ(escape_for_terminal("caf\xe9"), "caf\\xe9");
  EXPECT_EQ(escape_for_terminal("\xff\xfe"), "\\xff\\xfe");
  EXPECT_EQ(escape_for_terminal("\xe6\x97"), "\\xe6\\x97");
  EXPECT_EQ(escape_for_terminal("\xc0\xaf"), "\\xc0\\xaf");
  EXPECT_EQ(escape_for_terminal("\xed\xa0\x80"), "\\xed\\xa0\\x80");
}

TEST(TerminalEscape, EscapesBidiOverrides)
{
  EXPECT_EQ(escape_for_terminal("a\xe2\x80\xae"
                                "b"),
            "a\\xe2\\x80\\xaeb");
  EXPECT_EQ(escape_for_terminal("\xe2\x80\xaa"), "\\xe2\\x80\\xaa");
  EXPECT_EQ(escape_for_terminal("\xe2\x81\xa6\xe2\x81\xa9"), "\\xe2\\x81\\xa6\\xe2\\x81\\xa9");
}

TEST(TerminalEscape, KeepsNeighboursOfTheBidiRanges)
{
  EXPECT_EQ(escape_for_terminal("\xe2\x80\xa9\xe2\x80\xaf\xe2\x81\xa5\xe2\x81\xaa"),
            "\xe2\x80\xa9\xe2\x80\xaf\xe2\x81\xa5\xe2\x81\xaa");
}

TEST(TerminalEscape, KeepsValidMultiByteText)
{
  EXPECT_EQ(escape_for_terminal("café"), "café");
  EXPECT_EQ(escape_for_terminal("日本"), "日本");
  EXPECT_EQ(escape_for_terminal("\xf0\x9f\x98\x80"), "\xf0\x9f\x98\x80");
}

TEST(TerminalEscape, KeepsPrintableAsciiTabsAndBackslashes)
{
  EXPECT_EQ(escape_for_terminal("a\tb \\x1b ~"), "a\tb \\x1b ~");
}

TEST(TerminalEscape, KeepsOrEscapesNewlinesPerFlag)
{
  EXPECT_EQ(escape_for_terminal("a\nb"), "a\nb");
  EXPECT_EQ(escape_for_terminal("a\nb", KeepNewlines::yes), "a\nb");
  EXPECT_EQ(escape_for_terminal("a\nb", KeepNewlines::no), "a\\x0ab");
}

TEST(TerminalEscape, NeverOutputsControlsForRandomInput)
{
  std::mt19937 random(20261129);
  for (int i = 0; i < 5000; ++i) {
    const std::string text = random_text(random);
    expect_safe_for_terminal(escape_for_terminal(text, KeepNewlines::yes), KeepNewlines::yes);
    expect_safe_for_terminal(escape_for_terminal(text, KeepNewlines::no), KeepNewlines::no);
  }
}

TEST(TerminalEscape, RewritesDeleteAndC1InJson)
{
  EXPECT_EQ(escape_json_for_terminal("{\"a\":\"x\x7fy\"}"), "{\"a\":\"x\\u007fy\"}");
  EXPECT_EQ(escape_json_for_terminal("{\"a\":\"\xc2\x9b"
                                     "2J\"}"),
            "{\"a\":\"\\u009b2J\"}");
  EXPECT_EQ(escape_json_for_terminal("\"\xc2\x80\xc2\x9f\""), "\"\\u0080\\u009f\"");
}

TEST(TerminalEscape, RewritesStrayC1BytesInJson)
{
  EXPECT_EQ(escape_json_for_terminal("\"\x9b\""), "\"\\u009b\"");
}

TEST(TerminalEscape, LeavesOtherJsonUntouched)
{
  const std::string json = "{\"name\":\"café 日本\",\"n\":[1,2],\"e\":\"\\u001b\\n\"}\n";
  EXPECT_EQ(escape_json_for_terminal(json), json);
  EXPECT_EQ(escape_json_for_terminal("\"\xc2\xa0\""), "\"\xc2\xa0\"");
}

TEST(RenderForTerminal, PassesColoursAndCarriageReturnsAndEscapesTheRest)
{
  EXPECT_EQ(bgtask::render_for_terminal("\x1b[32mPASS\x1b[0m\n"), "\x1b[32mPASS\x1b[0m\n");
  EXPECT_EQ(bgtask::render_for_terminal("\x1b[1;38;5;196mred\x1b[m"), "\x1b[1;38;5;196mred\x1b[m");
  EXPECT_EQ(bgtask::render_for_terminal("10%\r50%\n"), "10%\r50%\n");
  EXPECT_EQ(bgtask::render_for_terminal("\x1b]0;title\x07"), "\\x1b]0;title\\x07");
  EXPECT_EQ(bgtask::render_for_terminal("\x1b[2J\x1b[H"), "\\x1b[2J\\x1b[H");
  EXPECT_EQ(bgtask::render_for_terminal("\x1b"), "\\x1b");
  EXPECT_EQ(bgtask::render_for_terminal("a\x9b"
                                        "b"),
            "a\\x9bb");
}

TEST(RenderForTerminal, HoldsBackAColourSequenceCutByAChunk)
{
  EXPECT_EQ(bgtask::incomplete_sgr_tail("ok\x1b"), 1u);
  EXPECT_EQ(bgtask::incomplete_sgr_tail("ok\x1b[3"), 3u);
  EXPECT_EQ(bgtask::incomplete_sgr_tail("ok\x1b[32m"), 0u);
  EXPECT_EQ(bgtask::incomplete_sgr_tail("ok\x1b]0"), 0u);
  EXPECT_EQ(bgtask::incomplete_sgr_tail("plain"), 0u);
}
