#include <bgtask/core/output_cursor.hpp>
#include <bgtask/util/agent_text.hpp>

#include <gtest/gtest.h>

using bgtask::Controls;
using bgtask::to_agent_text;
using bgtask::unfinished_text_tail;

TEST(AgentText, StripsEscapeSequencesAndKeepsNewlinesAndTabs)
{
  const auto t =
    to_agent_text("\x1b[1;31mred\x1b[0m\tok\n\x1b]0;title\x07x\x1bPdcs\x1b\\y", Controls::strip);
  EXPECT_EQ(t.text, "red\tok\nxy");
  EXPECT_EQ(t.replaced, 0u);
  EXPECT_GT(t.removed, 0u);
}

TEST(AgentText, CarriageReturnKeepsTheLastStateOfALine)
{
  EXPECT_EQ(to_agent_text("a\n 10%\r 50%\r100%\nb\r\n", Controls::strip).text, "a\n100%\nb\n");
}

TEST(AgentText, ReplacesInvalidUtf8AndCountsIt)
{
  const auto t = to_agent_text("a\xff\xc3\xa9\xc0", Controls::keep);
  EXPECT_EQ(t.text, "a\xef\xbf\xbd\xc3\xa9\xef\xbf\xbd");
  EXPECT_EQ(t.replaced, 2u);
}

TEST(AgentText, KeepModeKeepsControls)
{
  EXPECT_EQ(to_agent_text("\x1b[31mx\r", Controls::keep).text, "\x1b[31mx\r");
}

TEST(AgentText, RemovesC1AndOtherControls)
{
  EXPECT_EQ(to_agent_text("a\xc2\x9b"
                          "b\x07\x7f"
                          "c",
                          Controls::strip)
              .text,
            "abc");
}

TEST(AgentText, HoldsBackWhatMoreBytesCouldComplete)
{
  EXPECT_EQ(unfinished_text_tail("ab\xc3"), 1u);
  EXPECT_EQ(unfinished_text_tail("ab\xe2\x82"), 2u);
  EXPECT_EQ(unfinished_text_tail("ab\x1b[31"), 4u);
  EXPECT_EQ(unfinished_text_tail("ab\x1b]0;t"), 5u);
  EXPECT_EQ(unfinished_text_tail("ab\r"), 1u);
  EXPECT_EQ(unfinished_text_tail("ab\x1b[31m"), 0u);
  EXPECT_EQ(unfinished_text_tail("ab\xc3\xa9"), 0u);
}

TEST(OutputCursor, RoundTripsAndIsTiedToItsTask)
{
  const auto cursor = bgtask::encode_output_cursor("2nqrx7zj5xez", 123456789);
  EXPECT_EQ(bgtask::decode_output_cursor("2nqrx7zj5xez", cursor), 123456789u);
  EXPECT_FALSE(bgtask::decode_output_cursor("2nqrx7zj5xey", cursor));
  EXPECT_FALSE(bgtask::decode_output_cursor("2nqrx7zj5xez", "123456788" + cursor.substr(9)));
  for (const char* bad :
       {"", ".", "1.", ".abc", "01.00000000", "x.y", "-1.12345678", "99999999999999999999999.1"}) {
    EXPECT_FALSE(bgtask::decode_output_cursor("2nqrx7zj5xez", bad)) << bad;
  }
}
