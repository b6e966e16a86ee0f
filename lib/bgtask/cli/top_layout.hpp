#pragma once

#include <bgtask/cli/top_model.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace bgtask {

// The screen of `bgtask top` as lines of text, for any size, without a
// terminal: cli/top_screen paints them with curses, the unit tests read them.

// The columns a table row has, and their widths.
enum class TopColumnKind { id, state, progress, queue, started, name, info };
struct TopColumn
{
  TopColumnKind kind;
  std::string_view title;
  std::size_t width;
};

// The columns for a screen `width` wide: ID, STATE, PROGRESS and NAME from
// 60 columns on, a progress bar and QUEUE from 80, STARTED and INFO from
// 110; their widths and the two spaces between them never exceed `width`
// (below 60 the lines are cut).
std::vector<TopColumn> top_columns(std::size_t width);

// How a line is painted.
enum class TopStyle { plain, title, header, selected, failed, ended, footer };

struct TopLine
{
  std::string text; // at most the screen's width in columns
  TopStyle style = TopStyle::plain;
};

// What the person is doing: the selected task, the filter, a prompt being
// typed (the name filter), a cancel awaiting confirmation and the last
// message.
struct TopViewState
{
  std::string selected; // a task ID; empty: the first row
  TopFilter filter;
  bool prompting = false; // typing the name filter
  std::string confirming; // a task `c` asks to cancel, awaiting `y`
  std::string message;
  std::string dir; // the task directory, for the title
};

// Moves the selection `delta` rows up (negative) or down, within the rows.
void move_selection(const TopModel& model, TopViewState& view, int delta);

// The selected task among the rows, if any (the first row when the
// selected ID is not shown).
const TopTask* selected_task(const TopModel& model, const TopViewState& view);

// The screen, `height` lines of at most `width` columns: a title with the
// counts, the queues, the table, the latest events, a message line and the
// keys.
std::vector<TopLine> layout_top(const TopModel& model, const TopViewState& view, std::size_t width,
                                std::size_t height);

} // namespace bgtask
