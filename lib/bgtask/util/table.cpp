#include <bgtask/util/display_width.hpp>
#include <bgtask/util/table.hpp>

#include <algorithm>

namespace bgtask {

namespace {

constexpr std::size_t k_gap = 2;

void append_row(std::string& out, const TableRow& row, const std::vector<std::size_t>& widths)
{
  for (std::size_t i = 0; i < row.size(); ++i) {
    const bool cut = i < widths.size() && display_width(row[i]) > widths[i];
    const std::string cell = cut ? truncate_to_width(row[i], widths[i]) : row[i];
    out += cell;
    if (i + 1 < row.size()) {
      out.append(widths[i] - std::min(widths[i], display_width(cell)) + k_gap, ' ');
    }
  }
  out += '\n';
}

std::size_t line_width(const std::vector<std::size_t>& widths)
{
  std::size_t total = widths.empty() ? 0 : (widths.size() - 1) * k_gap;
  for (const auto w : widths) {
    total += w;
  }
  return total;
}

// Narrows the widest column (down to the next widest, or as far as needed)
// until the line fits in `max_width` or no column can give more.
void fit(std::vector<std::size_t>& widths, const std::vector<std::size_t>& minimum,
         std::size_t max_width)
{
  for (std::size_t total = line_width(widths); total > max_width; total = line_width(widths)) {
    std::size_t widest = widths.size();
    std::size_t next = 0;
    for (std::size_t i = 0; i < widths.size(); ++i) {
      if (widths[i] <= minimum[i]) {
        continue;
      }
      if (widest == widths.size() || widths[i] > widths[widest]) {
        next = widest == widths.size() ? next : std::max(next, widths[widest]);
        widest = i;
      } else {
        next = std::max(next, widths[i]);
      }
    }
    if (widest == widths.size()) {
      return; // every column is as narrow as its header
    }
    const std::size_t excess = total - max_width;
    const std::size_t target = widths[widest] > excess ? widths[widest] - excess : 0;
    widths[widest] = std::max({minimum[widest], target, std::min(next, widths[widest] - 1)});
  }
}

} // namespace

std::size_t narrowest_table_width(const TableRow& header, const std::vector<TableRow>& rows,
                                  std::size_t fixed_columns)
{
  std::vector<std::size_t> widths(header.size(), 0);
  for (std::size_t i = 0; i < header.size(); ++i) {
    widths[i] = display_width(header[i]);
    for (const auto& row : rows) {
      if (i < fixed_columns && i < row.size()) {
        widths[i] = std::max(widths[i], display_width(row[i]));
      }
    }
  }
  return line_width(widths);
}

std::string render_table(const TableRow& header, const std::vector<TableRow>& rows,
                         std::optional<std::size_t> max_width, std::size_t fixed_columns)
{
  std::vector<std::size_t> widths(header.size(), 0);
  const auto measure = [&](const TableRow& row) {
    for (std::size_t i = 0; i < row.size() && i < widths.size(); ++i) {
      widths[i] = std::max(widths[i], display_width(row[i]));
    }
  };
  measure(header);
  std::vector<std::size_t> minimum = widths;
  std::for_each(rows.begin(), rows.end(), measure);
  for (std::size_t i = 0; i < fixed_columns && i < widths.size(); ++i) {
    minimum[i] = widths[i];
  }
  if (max_width) {
    fit(widths, minimum, *max_width);
  }
  std::string out;
  append_row(out, header, widths);
  for (const auto& row : rows) {
    append_row(out, row, widths);
  }
  return out;
}

} // namespace bgtask
