#include <bgtask/cli/top_layout.hpp>
#include <bgtask/util/display_width.hpp>

#include <algorithm>
#include <cstdio>
#include <functional>

namespace bgtask {

namespace {

// The widths of the fixed columns.
constexpr std::size_t k_id_width = 12;
constexpr std::size_t k_state_width = 9;   // succeeded, cancelled, timed_out
constexpr std::size_t k_percent_width = 4; // 100%
constexpr std::size_t k_bar_width = 10;    // [########]
constexpr std::size_t k_queue_width = 10;
constexpr std::size_t k_started_width = 8; // HH:MM:SS
constexpr std::size_t k_gap = 2;
// Where the wider layouts begin.
constexpr std::size_t k_bar_from = 80;
constexpr std::size_t k_info_from = 110;

// The keys, in the footer: the long form from 80 columns, the short from 60.
constexpr std::string_view k_keys_long =
  "j/k select  o output  c cancel  p pause  r resume  / name  s state  q quit";
constexpr std::string_view k_keys_short =
  "j/k o:output c:cancel p:pause r:resume /:name s:state q:quit";

// `text` cut to `width` columns and padded to them with spaces.
std::string fitted(const std::string& text, std::size_t width)
{
  std::string cell = truncate_to_width(text, width);
  cell.append(width - std::min(width, display_width(cell)), ' ');
  return cell;
}

std::string progress_cell(const TopTask& task, std::size_t width)
{
  if (!task.percent) {
    return "-";
  }
  char number[8];
  std::snprintf(number, sizeof number, "%3.0f%%", *task.percent);
  if (width < k_bar_width + 1 + k_percent_width) {
    return number;
  }
  const std::size_t inner = k_bar_width - 2;
  const auto filled = static_cast<std::size_t>(*task.percent / 100.0 * static_cast<double>(inner));
  return "[" + std::string(filled, '#') + std::string(inner - filled, '.') + "] " + number;
}

std::string state_cell(const TopTask& task)
{
  if (task.paused && !is_final(task.state)) {
    return "paused";
  }
  return std::string(to_string(task.state));
}

std::string cell(const TopTask& task, const TopColumn& column)
{
  switch (column.kind) {
  case TopColumnKind::id:
    return task.id;
  case TopColumnKind::state:
    return state_cell(task);
  case TopColumnKind::progress:
    return progress_cell(task, column.width);
  case TopColumnKind::queue:
    return task.queue.empty() ? "-" : task.queue;
  case TopColumnKind::started:
    return task.started;
  case TopColumnKind::name:
    return task.name;
  case TopColumnKind::info:
    return task.info;
  }
  return {};
}

// One table line: the cells padded and joined; the last one not padded.
std::string table_line(const std::vector<TopColumn>& columns,
                       const std::function<std::string(const TopColumn&)>& text)
{
  std::string line;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    const bool last = i + 1 == columns.size();
    const std::string value = text(columns[i]);
    line += last ? truncate_to_width(value, columns[i].width) : fitted(value, columns[i].width);
    if (!last) {
      line.append(k_gap, ' ');
    }
  }
  return line;
}

std::string title_text(const TopModel& model, const TopViewState& view)
{
  std::string text = "bgtask top  running " + std::to_string(model.count(TaskState::running)) +
                     "  queued " + std::to_string(model.count(TaskState::queued));
  const std::size_t failed = model.count(TaskState::failed) + model.count(TaskState::timed_out) +
                             model.count(TaskState::lost);
  if (failed > 0) {
    text += "  failed " + std::to_string(failed);
  }
  if (!view.filter.name.empty() || view.filter.state != StateFilter::all) {
    text += "  [filter";
    if (!view.filter.name.empty()) {
      text += " name~" + view.filter.name;
    }
    if (view.filter.state != StateFilter::all) {
      text += " state=" + std::string(state_filter_name(view.filter.state));
    }
    text += "]";
  }
  return text + "  " + view.dir;
}

std::string queues_text(const std::vector<QueueUse>& queues)
{
  std::string text = "queues:";
  for (const QueueUse& use : queues) {
    text += "  " + use.name + " " + std::to_string(use.running) + "/" + std::to_string(use.slots);
    if (use.queued > 0) {
      text += " +" + std::to_string(use.queued) + " waiting";
    }
  }
  return text;
}

std::string footer_text(const TopViewState& view, std::size_t width)
{
  if (!view.confirming.empty()) {
    return "cancel " + view.confirming + "? y: cancel it, any other key: keep it";
  }
  if (view.prompting) {
    return "name filter: " + view.filter.name + "_   (Enter: keep, Esc: clear)";
  }
  return std::string(width >= k_keys_long.size() ? k_keys_long : k_keys_short);
}

TopStyle row_style(const TopTask& task, bool selected)
{
  if (selected) {
    return TopStyle::selected;
  }
  if (is_failure_state(task.state)) {
    return TopStyle::failed;
  }
  return is_final(task.state) ? TopStyle::ended : TopStyle::plain;
}

// The table's lines: the header, then `room` rows that include the selected one.
void add_table(std::vector<TopLine>& lines, const std::vector<const TopTask*>& rows,
               const TopTask* selected, std::size_t width, std::size_t room)
{
  const std::vector<TopColumn> columns = top_columns(width);
  lines.push_back({table_line(columns, [](const TopColumn& c) { return std::string(c.title); }),
                   TopStyle::header});
  const auto at = std::find(rows.begin(), rows.end(), selected);
  const std::size_t index = at == rows.end() ? 0 : static_cast<std::size_t>(at - rows.begin());
  const std::size_t first = index >= room ? index - room + 1 : 0;
  for (std::size_t i = first; i < rows.size() && i < first + room; ++i) {
    const TopTask& task = *rows[i];
    lines.push_back({table_line(columns, [&](const TopColumn& c) { return cell(task, c); }),
                     row_style(task, rows[i] == selected)});
  }
  if (rows.empty()) {
    lines.push_back({"(no task to show)", TopStyle::ended});
  }
}

} // namespace

std::vector<TopColumn> top_columns(std::size_t width)
{
  const bool wide = width >= k_bar_from;
  const bool widest = width >= k_info_from;
  std::vector<TopColumn> columns{{TopColumnKind::id, "ID", k_id_width},
                                 {TopColumnKind::state, "STATE", k_state_width},
                                 {TopColumnKind::progress, "PROGRESS",
                                  wide ? k_bar_width + 1 + k_percent_width : k_percent_width + 4}};
  if (wide) {
    columns.push_back({TopColumnKind::queue, "QUEUE", k_queue_width});
  }
  if (widest) {
    columns.push_back({TopColumnKind::started, "STARTED", k_started_width});
  }
  std::size_t used = 0;
  for (const auto& column : columns) {
    used += column.width + k_gap;
  }
  const std::size_t left = width > used ? width - used : 0;
  if (!widest) {
    columns.push_back({TopColumnKind::name, "NAME", left});
    return columns;
  }
  // NAME gets a third of what is left (at least 16 columns), INFO the rest.
  const std::size_t name = std::max<std::size_t>(16, left / 3);
  columns.push_back({TopColumnKind::name, "NAME", name});
  columns.push_back({TopColumnKind::info, "INFO", left > name + k_gap ? left - name - k_gap : 0});
  return columns;
}

const TopTask* selected_task(const TopModel& model, const TopViewState& view)
{
  const auto rows = model.rows(view.filter);
  for (const TopTask* task : rows) {
    if (task->id == view.selected) {
      return task;
    }
  }
  return rows.empty() ? nullptr : rows.front();
}

void move_selection(const TopModel& model, TopViewState& view, int delta)
{
  const auto rows = model.rows(view.filter);
  if (rows.empty()) {
    return;
  }
  const TopTask* current = selected_task(model, view);
  const auto at = std::find(rows.begin(), rows.end(), current) - rows.begin();
  const auto last = static_cast<std::ptrdiff_t>(rows.size()) - 1;
  view.selected =
    rows[static_cast<std::size_t>(std::clamp<std::ptrdiff_t>(at + delta, 0, last))]->id;
}

std::vector<TopLine> layout_top(const TopModel& model, const TopViewState& view, std::size_t width,
                                std::size_t height)
{
  std::vector<TopLine> lines;
  lines.push_back({title_text(model, view), TopStyle::title});
  const std::vector<QueueUse> queues = model.queues();
  if (!queues.empty()) {
    lines.push_back({queues_text(queues), TopStyle::plain});
  }
  // Below: the table's header, the events' header, the message and the keys.
  const std::size_t fixed = lines.size() + 4;
  const std::size_t free = height > fixed ? height - fixed : 0;
  // The events get a third of the room, or what the rows leave if more.
  const auto& events = model.events();
  const std::vector<const TopTask*> rows = model.rows(view.filter);
  const std::size_t rows_room = std::max<std::size_t>(rows.size(), 1);
  const std::size_t event_room = std::min(
    events.size(), std::max({std::size_t{2}, free / 3, free > rows_room ? free - rows_room : 0}));
  const std::size_t table_room = free > event_room ? free - event_room : 1;
  add_table(lines, rows, selected_task(model, view), width, table_room);
  while (lines.size() < fixed - 3 + table_room) {
    lines.push_back({});
  }
  lines.push_back({"EVENTS", TopStyle::header});
  for (std::size_t i = events.size() - std::min(events.size(), event_room); i < events.size();
       ++i) {
    lines.push_back({events[i].text, events[i].failure ? TopStyle::failed : TopStyle::plain});
  }
  while (lines.size() + 2 < height) {
    lines.push_back({});
  }
  lines.push_back({view.message, TopStyle::plain});
  lines.push_back({footer_text(view, width), TopStyle::footer});
  for (TopLine& line : lines) {
    line.text = truncate_to_width(line.text, width);
  }
  if (lines.size() > height) {
    // Too short a screen: keep the title, then the footer wins over the rest.
    std::vector<TopLine> kept(lines.begin(), lines.begin() + static_cast<std::ptrdiff_t>(height));
    if (height >= 2) {
      kept.back() = lines.back();
    }
    return kept;
  }
  return lines;
}

} // namespace bgtask
