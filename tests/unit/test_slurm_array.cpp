#include <bgtask/core/slurm_array_spec.hpp>
#include <bgtask/exec/slurm/slurm_array.hpp>

#include <gtest/gtest.h>

using bgtask::parse_slurm_array;

namespace {

std::vector<std::uint32_t> indices(std::string_view text)
{
  const auto spec = parse_slurm_array(text);
  EXPECT_TRUE(spec.has_value()) << text << ": " << (spec ? "" : spec.error());
  return spec ? spec->indices : std::vector<std::uint32_t>{};
}

} // namespace

TEST(SlurmArray, ReadsSbatchArraySyntax)
{
  EXPECT_EQ(indices("1-5"), (std::vector<std::uint32_t>{1, 2, 3, 4, 5}));
  EXPECT_EQ(indices("0-15:4"), (std::vector<std::uint32_t>{0, 4, 8, 12}));
  EXPECT_EQ(indices("7,1,3,3"), (std::vector<std::uint32_t>{1, 3, 7}));
  EXPECT_EQ(indices("2"), (std::vector<std::uint32_t>{2}));
  EXPECT_EQ(indices("1-3,10-12:2"), (std::vector<std::uint32_t>{1, 2, 3, 10, 12}));
  const auto limited = parse_slurm_array("1-1000%50");
  ASSERT_TRUE(limited.has_value());
  EXPECT_EQ(limited->indices.size(), 1000U);
  EXPECT_EQ(limited->limit, 50U);
}

TEST(SlurmArray, RefusesWhatSbatchWouldNotTakeOrBgtaskCannotRecord)
{
  for (const auto* text : {"", "%5", "1-", "-3", "5-1", "1-5:0", "1:2", "a", "1,,2", "1-5%0",
                           "1-5%", "1-5%x", "1 2", "4000001", "0-10000"}) {
    const auto spec = parse_slurm_array(text);
    EXPECT_FALSE(spec.has_value()) << text;
    if (!spec) {
      EXPECT_TRUE(spec.error().starts_with("--array: ")) << spec.error();
    }
  }
  EXPECT_TRUE(parse_slurm_array("0-9999").has_value());
}

TEST(SlurmArray, GivesSbatchExactlyTheRecordedIndices)
{
  auto spec = parse_slurm_array("9-11,1-5,7,0-15:20%2");
  ASSERT_TRUE(spec.has_value());
  EXPECT_EQ(bgtask::slurm_array_argument(*spec), "0-5,7,9-11%2");
  spec = parse_slurm_array("0-12:4");
  ASSERT_TRUE(spec.has_value());
  EXPECT_EQ(bgtask::slurm_array_argument(*spec), "0,4,8,12");
}

TEST(SlurmArray, NamesTheArrayJobOfAnElement)
{
  EXPECT_EQ(bgtask::slurm_array_job("41_3"), "41");
  EXPECT_EQ(bgtask::slurm_array_job("41"), "41");
}
