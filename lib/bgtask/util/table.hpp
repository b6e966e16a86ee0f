#pragma once

#include <string>
#include <vector>

namespace bgtask {

using TableRow = std::vector<std::string>;

// Lays out rows under a header in columns separated by two spaces, padded
// to the widest cell (counting UTF-8 code points); the last column is not
// padded. Cells must already be escaped for display; colour (SGR) sequences
// `ESC [ ... m` in them take no width.
std::string render_table(const TableRow& header, const std::vector<TableRow>& rows);

} // namespace bgtask
