#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace bgtask {

using TableRow = std::vector<std::string>;

// Lays out rows under a header in columns separated by two spaces, padded
// to the widest cell by display width (display_width.hpp: CJK and emoji
// take two columns, combining marks none, colour sequences none); the last
// column is not padded. Cells must already be escaped for display (no
// newline or tab). With `max_width`, the widest columns from index
// `fixed_columns` on are narrowed, one after another but never below their
// header, until a line fits, and their cells cut with `…` (truncate_to_width);
// the first `fixed_columns` columns are never cut.
std::string render_table(const TableRow& header, const std::vector<TableRow>& rows,
                         std::optional<std::size_t> max_width = std::nullopt,
                         std::size_t fixed_columns = 0);

// The width of the narrowest line render_table can make of these: the first
// `fixed_columns` columns whole, the others as wide as their header.
std::size_t narrowest_table_width(const TableRow& header, const std::vector<TableRow>& rows,
                                  std::size_t fixed_columns);

} // namespace bgtask
