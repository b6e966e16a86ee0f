#include <bgtask/util/table.hpp>

#include <gtest/gtest.h>

using bgtask::render_table;
using bgtask::TableRow;

TEST(RenderTable, PrintsOnlyTheHeaderWithoutRows)
{
  EXPECT_EQ(render_table({"ID", "STATE"}, {}), "ID  STATE\n");
}

TEST(RenderTable, PadsEachColumnToItsWidestCell)
{
  const std::string table =
    render_table({"ID", "STATE", "NAME"}, {{"a", "running", "x"}, {"abcdef", "ok", "longer name"}});
  EXPECT_EQ(table, "ID      STATE    NAME\n"
                   "a       running  x\n"
                   "abcdef  ok       longer name\n");
}

TEST(RenderTable, NeverPadsTheLastColumn)
{
  const std::string table = render_table({"A", "LAST"}, {{"1", "x"}, {"2", "a much longer cell"}});
  for (std::size_t pos = table.find('\n'); pos != std::string::npos;
       pos = table.find('\n', pos + 1)) {
    ASSERT_GT(pos, 0u);
    EXPECT_NE(table[pos - 1], ' ') << table;
  }
}

TEST(RenderTable, CountsUtf8CodePointsAsOneColumn)
{
  const std::string table =
    render_table({"NAME", "X"}, {{"café", "1"}, {"日本", "2"}, {"abcde", "3"}});
  EXPECT_EQ(table, "NAME   X\n"
                   "café   1\n"
                   "日本     2\n"
                   "abcde  3\n");
}

TEST(RenderTable, KeepsEmptyCellsAligned)
{
  EXPECT_EQ(render_table({"A", "B", "C"}, {{"", "", "z"}}), "A  B  C\n"
                                                            "      z\n");
}

TEST(RenderTable, KeepsRowsInTheGivenOrder)
{
  const std::vector<TableRow> rows = {{"3"}, {"1"}, {"2"}};
  EXPECT_EQ(render_table({"N"}, rows), "N\n3\n1\n2\n");
}
