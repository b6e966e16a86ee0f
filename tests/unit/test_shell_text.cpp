#include <bgtask/util/shell_quote.hpp>
#include <bgtask/util/split.hpp>

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

using bgtask::EmptyParts;
using Views = std::vector<std::string_view>;

TEST(Split, KeepsOrDropsEmptyParts)
{
  EXPECT_EQ(bgtask::split("a,,b,", ',', EmptyParts::keep), (Views{"a", "", "b", ""}));
  EXPECT_EQ(bgtask::split("", ',', EmptyParts::keep), (Views{""}));
  EXPECT_EQ(bgtask::split("a,,b,", ',', EmptyParts::drop), (Views{"a", "b"}));
  EXPECT_EQ(bgtask::split("", ',', EmptyParts::drop), (Views{}));
  EXPECT_EQ(bgtask::split_list(",x,y,,"), (std::vector<std::string>{"x", "y"}));
}

TEST(ShellQuote, QuotesEveryByteBackAsItWas)
{
  EXPECT_EQ(bgtask::shell_quote("plain"), "'plain'");
  EXPECT_EQ(bgtask::shell_quote(""), "''");
  EXPECT_EQ(bgtask::shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(bgtask::shell_word("a-b_c./d:e=f@g%h+i,j"), "a-b_c./d:e=f@g%h+i,j");
  EXPECT_EQ(bgtask::shell_word("two words"), "'two words'");
  EXPECT_EQ(bgtask::shell_word(""), "''");
  EXPECT_EQ(bgtask::shell_word("$HOME"), "'$HOME'");
}
