#include <bgtask/util/table.hpp>

#include <algorithm>

namespace bgtask {

namespace {

std::size_t display_width(const std::string& text)
{
  std::size_t width = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\x1b' && i + 1 < text.size() && text[i + 1] == '[') {
      const auto end = text.find('m', i + 2);
      if (end != std::string::npos) {
        i = end;
        continue;
      }
    }
    if ((text[i] & 0xC0) != 0x80) {
      ++width;
    }
  }
  return width;
}

void append_row(std::string& out, const TableRow& row, const std::vector<std::size_t>& widths)
{
  for (std::size_t i = 0; i < row.size(); ++i) {
    out += row[i];
    if (i + 1 < row.size()) {
      out.append(widths[i] - display_width(row[i]) + 2, ' ');
    }
  }
  out += '\n';
}

} // namespace

std::string render_table(const TableRow& header, const std::vector<TableRow>& rows)
{
  std::vector<std::size_t> widths(header.size(), 0);
  const auto measure = [&](const TableRow& row) {
    for (std::size_t i = 0; i < row.size() && i < widths.size(); ++i) {
      widths[i] = std::max(widths[i], display_width(row[i]));
    }
  };
  measure(header);
  std::for_each(rows.begin(), rows.end(), measure);
  std::string out;
  append_row(out, header, widths);
  for (const auto& row : rows) {
    append_row(out, row, widths);
  }
  return out;
}

} // namespace bgtask
