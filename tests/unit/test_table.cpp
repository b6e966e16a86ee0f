#include <bgtask/util/display_width.hpp>
#include <bgtask/util/table.hpp>
#include <bgtask/util/terminal_escape.hpp>

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

TEST(RenderTable, AlignsByDisplayWidth)
{
  // CJK and emoji take two columns, a combining accent none.
  const std::string table = render_table(
    {"NAME", "X"},
    {{"café", "1"}, {"日本", "2"}, {"abcde", "3"}, {"e\u0301t\u00e9", "4"}, {"\U0001F680", "5"}});
  EXPECT_EQ(table, "NAME   X\n"
                   "café   1\n"
                   "日本   2\n"
                   "abcde  3\n"
                   "e\u0301t\u00e9    4\n"
                   "\U0001F680     5\n");
}

TEST(RenderTable, CutsTheWidestFreeColumnsToFitWithAnEllipsis)
{
  const std::vector<TableRow> rows{{"2nk5t7f30b55", "a rather long name here", "x"},
                                   {"2nk5t7f30b56", "short", "a long command line"}};
  const std::string table = render_table({"ID", "NAME", "COMMAND"}, rows, 36, 1);
  EXPECT_EQ(table, "ID            NAME        COMMAND\n"
                   "2nk5t7f30b55  a rather …  x\n"
                   "2nk5t7f30b56  short       a long co…\n")
    << table;
  for (std::size_t start = 0, end = table.find('\n'); end != std::string::npos;
       start = end + 1, end = table.find('\n', start)) {
    EXPECT_LE(bgtask::display_width(table.substr(start, end - start)), 36U) << table;
  }
}

TEST(RenderTable, NeverCutsFixedColumnsOrBelowTheHeader)
{
  const std::string table = render_table({"ID", "NAME"}, {{"2nk5t7f30b55", "abcdefgh"}}, 10, 1);
  EXPECT_EQ(table, "ID            NAME\n"
                   "2nk5t7f30b55  abc…\n");
}

TEST(TableCell, EscapesNewlinesAndTabsSoNoRowCanBeForged)
{
  EXPECT_EQ(bgtask::escape_table_cell("evil\n2nk5t7f30b55\tsucceeded"),
            "evil\\x0a2nk5t7f30b55\\x09succeeded");
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

TEST(RenderTable, NarrowestWidthKeepsFixedColumnsWholeAndOthersAtTheirHeader)
{
  const std::vector<TableRow> rows = {{"cancelled", "sig15", "a-long-name"}};
  // 9 + 2 + 5 + 2 + 4 (NAME, as wide as its header).
  EXPECT_EQ(bgtask::narrowest_table_width({"STATE", "EXIT", "NAME"}, rows, 2), 22u);
  const std::string fitted = render_table({"STATE", "EXIT", "NAME"}, rows, 22, 2);
  EXPECT_EQ(fitted, "STATE      EXIT   NAME\ncancelled  sig15  a-l…\n");
}
