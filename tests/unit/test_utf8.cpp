#include <bgtask/util/utf8.hpp>

#include <gtest/gtest.h>

#include <random>
#include <string>

using bgtask::is_valid_utf8;
using bgtask::to_valid_utf8;

TEST(Utf8, AcceptsAsciiAndEmptyText)
{
  EXPECT_TRUE(is_valid_utf8(""));
  EXPECT_TRUE(is_valid_utf8("hello, world"));
  EXPECT_TRUE(is_valid_utf8(std::string_view("a\0b", 3)));
}

TEST(Utf8, AcceptsMultiByteText)
{
  EXPECT_TRUE(is_valid_utf8("café"));
  EXPECT_TRUE(is_valid_utf8("日本"));
  EXPECT_TRUE(is_valid_utf8("\xf0\x9f\x98\x80"));
}

TEST(Utf8, AcceptsTheBoundariesOfEachSequenceLength)
{
  for (const char* text :
       {"\x7f", "\xc2\x80", "\xdf\xbf", "\xe0\xa0\x80", "\xed\x9f\xbf", "\xee\x80\x80",
        "\xef\xbf\xbf", "\xf0\x90\x80\x80", "\xf4\x8f\xbf\xbf"}) {
    EXPECT_TRUE(is_valid_utf8(text)) << to_valid_utf8(text);
  }
}

TEST(Utf8, RejectsOverlongEncodings)
{
  for (const char* text : {"\xc0\xaf", "\xc1\xbf", "\xe0\x80\xaf", "\xe0\x9f\xbf",
                           "\xf0\x80\x80\xaf", "\xf0\x8f\xbf\xbf"}) {
    EXPECT_FALSE(is_valid_utf8(text)) << to_valid_utf8(text);
  }
}

TEST(Utf8, RejectsSurrogates)
{
  EXPECT_FALSE(is_valid_utf8("\xed\xa0\x80"));
  EXPECT_FALSE(is_valid_utf8("\xed\xbf\xbf"));
  EXPECT_FALSE(is_valid_utf8("\xed\xa0\xbd\xed\xb8\x80"));
}

TEST(Utf8, RejectsCodePointsAboveTheUnicodeRange)
{
  EXPECT_FALSE(is_valid_utf8("\xf4\x90\x80\x80"));
  EXPECT_FALSE(is_valid_utf8("\xf5\x80\x80\x80"));
  EXPECT_FALSE(is_valid_utf8("\xf8\x88\x80\x80\x80"));
  EXPECT_FALSE(is_valid_utf8("\xff"));
}

TEST(Utf8, RejectsTruncatedSequences)
{
  EXPECT_FALSE(is_valid_utf8("\xc3"));
  EXPECT_FALSE(is_valid_utf8("\xe6\x97"));
  EXPECT_FALSE(is_valid_utf8("\xf0\x9f\x98"));
  EXPECT_FALSE(is_valid_utf8("ab\xe6\x97"));
  EXPECT_FALSE(is_valid_utf8("\xc3"
                             "a"));
  EXPECT_FALSE(is_valid_utf8("\xe6\x97"
                             "a"));
}

TEST(Utf8, RejectsStrayContinuationBytes)
{
  EXPECT_FALSE(is_valid_utf8("\x80"));
  EXPECT_FALSE(is_valid_utf8("a\xbf"));
  EXPECT_FALSE(is_valid_utf8("\xc3\xa9\xa9"));
}

TEST(Utf8, KeepsValidTextUnchanged)
{
  EXPECT_EQ(to_valid_utf8("café 日本 \\x41"), "café 日本 \\x41");
  EXPECT_EQ(to_valid_utf8(""), "");
}

TEST(Utf8, EscapesInvalidBytesAsHex)
{
  EXPECT_EQ(to_valid_utf8("caf\xe9"), "caf\\xe9");
  EXPECT_EQ(to_valid_utf8("\xed\xa0\x80"), "\\xed\\xa0\\x80");
  EXPECT_EQ(to_valid_utf8("\xe6\x97"), "\\xe6\\x97");
  EXPECT_EQ(to_valid_utf8("\xe6\x97\xa5\xe6\x97"), "\xe6\x97\xa5\\xe6\\x97");
  EXPECT_EQ(to_valid_utf8("\xc3"
                          "a"),
            "\\xc3a");
  EXPECT_EQ(to_valid_utf8("a\xc3\xa9\xff"), "a\xc3\xa9\\xff");
}

TEST(Utf8, AlwaysProducesValidUtf8)
{
  std::mt19937 random(42);
  std::uniform_int_distribution<int> length(0, 24);
  std::uniform_int_distribution<int> byte(0x70, 0xff);
  for (int i = 0; i < 5000; ++i) {
    std::string text;
    for (int n = length(random); n > 0; --n) {
      text += static_cast<char>(byte(random));
    }
    const std::string valid = to_valid_utf8(text);
    ASSERT_TRUE(is_valid_utf8(valid)) << valid;
    if (is_valid_utf8(text)) {
      ASSERT_EQ(valid, text);
    }
  }
}
