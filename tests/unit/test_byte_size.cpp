#include <bgtask/util/byte_size.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

using bgtask::parse_byte_size;

namespace {

constexpr std::uint64_t k_kib = 1024;
constexpr std::uint64_t k_mib = 1024 * k_kib;
constexpr std::uint64_t k_gib = 1024 * k_mib;

// The reason parse_byte_size gives for refusing `text`.
std::string rejection_message(std::string_view text)
{
  const auto result = parse_byte_size(text);
  if (result) {
    ADD_FAILURE() << "accepted '" << text << "'";
    return {};
  }
  return result.error();
}

// What parse_byte_size makes of `text`, which it must accept.
std::uint64_t parsed(std::string_view text)
{
  const auto result = parse_byte_size(text);
  EXPECT_TRUE(result) << text << ": " << (result ? "" : result.error());
  return result.value_or(~std::uint64_t{0});
}

} // namespace

TEST(ByteSize, ParsesPlainByteCounts)
{
  EXPECT_EQ(parsed("0"), 0U);
  EXPECT_EQ(parsed("512"), 512U);
  EXPECT_EQ(parsed("512B"), 512U);
  EXPECT_EQ(parsed("512b"), 512U);
}

TEST(ByteSize, ParsesKibibytesInEverySpelling)
{
  for (const char* text : {"64K", "64k", "64KB", "64kb", "64KiB", "64kib", "64KIB"}) {
    EXPECT_EQ(parsed(text), 64 * k_kib) << text;
  }
}

TEST(ByteSize, ParsesMebibytesInEverySpelling)
{
  for (const char* text : {"1M", "1m", "1MB", "1MiB", "1mib"}) {
    EXPECT_EQ(parsed(text), k_mib) << text;
  }
}

TEST(ByteSize, ParsesGibibytesInEverySpelling)
{
  for (const char* text : {"2G", "2g", "2GB", "2GiB", "2gib"}) {
    EXPECT_EQ(parsed(text), 2 * k_gib) << text;
  }
}

TEST(ByteSize, AcceptsExactlyTwoToTheSixtyTwo)
{
  EXPECT_EQ(parsed("4611686018427387904"), std::uint64_t{1} << 62);
  EXPECT_EQ(parsed("4294967296G"), std::uint64_t{1} << 62);
}

TEST(ByteSize, RejectsValuesAboveTwoToTheSixtyTwo)
{
  EXPECT_EQ(rejection_message("4611686018427387905"),
            "invalid size '4611686018427387905': must be at most 2^62 bytes");
  rejection_message("4294967297G");
  rejection_message("4398046511105M");
  rejection_message("18446744073709551616");
  rejection_message("99999999999999999999999999999999K");
}

TEST(ByteSize, RejectsMalformedInput)
{
  EXPECT_EQ(rejection_message("-1"), "invalid size '-1': expected a whole number of bytes with an "
                                     "optional unit (B, K, M, G), e.g. 512K or 1G");
  for (const char* text :
       {"", "K", "1.5M", " 1K", "1K ", "1 K", "1TB", "1KiBB", "0x10", "1e3", "1Ki", "+1"}) {
    rejection_message(text);
  }
}

TEST(ByteSize, EscapesControlCharactersInTheMessage)
{
  const std::string message = rejection_message("1\nK");
  EXPECT_EQ(message.find('\n'), std::string::npos);
  EXPECT_NE(message.find("1\\x0aK"), std::string::npos);
}
