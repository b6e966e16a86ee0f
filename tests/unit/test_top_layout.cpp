#include <bgtask/cli/top_layout.hpp>
#include <bgtask/util/display_width.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

using namespace bgtask;

namespace {

TaskRecord record(const std::string& id, TaskState state, const std::string& name)
{
  TaskRecord r;
  r.id = id;
  r.name = name;
  r.command = {"sleep", "30"};
  r.state = state;
  r.created_at = TimePoint(std::chrono::seconds(1700000000 + std::stoi(id.substr(8))));
  if (is_final(state)) {
    r.finished_at = r.created_at + std::chrono::seconds(1);
  }
  if (state == TaskState::failed) {
    r.exit_code = 3;
  }
  return r;
}

// Two running tasks (one at 50%), one queued in `build`, one failed, and events.
TopModel sample_model()
{
  TopModel model;
  auto compiling = record("2nk5t7f30001", TaskState::running, "compile");
  compiling.progress = Progress{50.0, std::nullopt, std::nullopt, "linking", {}};
  compiling.queue = "build";
  model.update(compiling);
  model.update(record("2nk5t7f30002", TaskState::running, "serve"));
  auto waiting = record("2nk5t7f30003", TaskState::queued, "package");
  waiting.queue = "build";
  model.update(waiting);
  model.update(record("2nk5t7f30004", TaskState::failed, "lint"));
  model.set_slots("build", 1);
  model.add_event({"12:00:01 task.started 2nk5t7f30001 [compile]", false});
  model.add_event({"12:00:02 task.exited 2nk5t7f30004 [lint] failed exit 3", true});
  return model;
}

std::size_t columns_width(const std::vector<TopColumn>& columns)
{
  std::size_t width = 0;
  for (const auto& column : columns) {
    width += column.width;
  }
  return width + 2 * (columns.size() - 1);
}

std::vector<std::string_view> titles(const std::vector<TopColumn>& columns)
{
  std::vector<std::string_view> out;
  for (const auto& column : columns) {
    out.push_back(column.title);
  }
  return out;
}

const TopLine* line_with(const std::vector<TopLine>& lines, std::string_view text)
{
  const auto it = std::find_if(lines.begin(), lines.end(), [&](const TopLine& line) {
    return line.text.find(text) != std::string::npos;
  });
  return it == lines.end() ? nullptr : &*it;
}

} // namespace

TEST(TopLayout, ColumnsFitEveryWidthFrom60To200)
{
  for (std::size_t width = 60; width <= 200; ++width) {
    const auto columns = top_columns(width);
    EXPECT_LE(columns_width(columns), width) << width;
    EXPECT_GE(columns_width(columns), width - 1) << width; // the name and info take the rest
  }
}

TEST(TopLayout, WiderScreensGainQueueThenStartedAndInfo)
{
  using V = std::vector<std::string_view>;
  EXPECT_EQ(titles(top_columns(60)), (V{"ID", "STATE", "PROGRESS", "NAME"}));
  EXPECT_EQ(titles(top_columns(79)), (V{"ID", "STATE", "PROGRESS", "NAME"}));
  EXPECT_EQ(titles(top_columns(80)), (V{"ID", "STATE", "PROGRESS", "QUEUE", "NAME"}));
  EXPECT_EQ(titles(top_columns(120)),
            (V{"ID", "STATE", "PROGRESS", "QUEUE", "STARTED", "NAME", "INFO"}));
  EXPECT_GE(top_columns(60).back().width, 20u); // the name keeps room at the narrowest
}

TEST(TopLayout, EveryLineFitsAndTheScreenIsFilled)
{
  const TopModel model = sample_model();
  for (const std::size_t width : {60, 80, 120, 200}) {
    for (const std::size_t height : {8, 24, 60}) {
      TopViewState view;
      view.dir = "/home/someone/.local/state/bgtask/with/a/long/path/to/show";
      const auto lines = layout_top(model, view, width, height);
      EXPECT_EQ(lines.size(), height) << width << "x" << height;
      for (const auto& line : lines) {
        EXPECT_LE(display_width(line.text), width) << line.text;
      }
      EXPECT_EQ(lines.front().style, TopStyle::title);
      EXPECT_EQ(lines.back().style, TopStyle::footer);
      EXPECT_NE(lines.back().text.find("quit"), std::string::npos) << lines.back().text;
    }
  }
}

TEST(TopLayout, ShowsProgressQueuesAndHighlightsFailures)
{
  const TopModel model = sample_model();
  TopViewState view;
  view.selected = "2nk5t7f30002";
  const auto lines = layout_top(model, view, 120, 30);
  const TopLine* compiling = line_with(lines, "compile");
  ASSERT_NE(compiling, nullptr);
  EXPECT_NE(compiling->text.find("[####....]  50%"), std::string::npos) << compiling->text;
  EXPECT_NE(compiling->text.find("linking"), std::string::npos) << compiling->text;
  ASSERT_NE(line_with(lines, "queues:  build 1/1 +1 waiting"), nullptr);
  const TopLine* failed_row = line_with(lines, "2nk5t7f30004  failed");
  ASSERT_NE(failed_row, nullptr);
  EXPECT_EQ(failed_row->style, TopStyle::failed);
  EXPECT_EQ(line_with(lines, "failed exit 3")->style, TopStyle::failed);
  EXPECT_EQ(line_with(lines, "serve")->style, TopStyle::selected);
  EXPECT_NE(lines.front().text.find("running 2  queued 1  failed 1"), std::string::npos)
    << lines.front().text;
  // At 60 columns the progress is a number, without the bar.
  const TopLine* narrow = line_with(layout_top(model, view, 60, 30), "compile");
  ASSERT_NE(narrow, nullptr);
  EXPECT_NE(narrow->text.find(" 50%"), std::string::npos);
  EXPECT_EQ(narrow->text.find('['), std::string::npos) << narrow->text;
}

TEST(TopLayout, RowsAreRunningThenQueuedThenTheLatestEnded)
{
  const TopModel model = sample_model();
  std::vector<std::string> ids;
  for (const TopTask* task : model.rows({})) {
    ids.push_back(task->id);
  }
  EXPECT_EQ(ids, (std::vector<std::string>{"2nk5t7f30001", "2nk5t7f30002", "2nk5t7f30003",
                                           "2nk5t7f30004"}));
}

TEST(TopLayout, FiltersByNameAndState)
{
  const TopModel model = sample_model();
  TopViewState view;
  view.filter.name = "serv";
  auto lines = layout_top(model, view, 80, 24);
  EXPECT_NE(line_with(lines, "serve"), nullptr);
  EXPECT_EQ(line_with(lines, "compile "), nullptr);
  EXPECT_NE(lines.front().text.find("name~serv"), std::string::npos);
  view.filter = {};
  view.filter.state = StateFilter::failed;
  EXPECT_EQ(model.rows(view.filter).size(), 1u);
  view.filter.state = next_state_filter(view.filter.state);
  EXPECT_EQ(view.filter.state, StateFilter::all);
  view.filter.state = StateFilter::queued;
  ASSERT_EQ(model.rows(view.filter).size(), 1u);
  EXPECT_EQ(model.rows(view.filter).front()->name, "package");
}

TEST(TopLayout, TheSelectedRowStaysOnAShortScreen)
{
  TopModel model;
  for (int i = 0; i < 100; ++i) {
    char id[16];
    std::snprintf(id, sizeof id, "2nk5t7f3%04d", i);
    model.update(record(id, TaskState::running, "task" + std::to_string(i)));
  }
  TopViewState view;
  move_selection(model, view, 80);
  EXPECT_EQ(view.selected, "2nk5t7f30080");
  const auto lines = layout_top(model, view, 80, 20);
  const TopLine* selected = line_with(lines, "task80");
  ASSERT_NE(selected, nullptr);
  EXPECT_EQ(selected->style, TopStyle::selected);
  move_selection(model, view, 1000);
  EXPECT_EQ(view.selected, "2nk5t7f30099");
  move_selection(model, view, -1000);
  EXPECT_EQ(view.selected, "2nk5t7f30000");
}

TEST(TopLayout, KeepsTheLatestEndedTasksAndEvents)
{
  TopModel model;
  for (std::size_t i = 0; i < k_top_ended_tasks + 10; ++i) {
    char id[16];
    std::snprintf(id, sizeof id, "2nk5t7f3%04zu", i);
    model.update(record(id, TaskState::succeeded, "done"));
    model.add_event({"event " + std::to_string(i), false});
  }
  for (std::size_t i = 0; i < k_top_events; ++i) {
    model.add_event({"more", false});
  }
  EXPECT_EQ(model.rows({}).size(), k_top_ended_tasks);
  EXPECT_EQ(model.rows({}).back()->id, "2nk5t7f30010"); // the ten oldest went
  EXPECT_EQ(model.events().size(), k_top_events);
}

TEST(TopLayout, ThePromptReplacesTheKeys)
{
  const TopModel model = sample_model();
  TopViewState view;
  view.prompting = true;
  view.filter.name = "comp";
  const auto lines = layout_top(model, view, 60, 24);
  EXPECT_EQ(lines.back().text.rfind("name filter: comp_", 0), 0u) << lines.back().text;
}

TEST(TopLayout, StateFiltersAreNamedAsTheOptionTakesThem)
{
  for (auto filter : {StateFilter::all, StateFilter::running, StateFilter::queued,
                      StateFilter::ended, StateFilter::failed}) {
    EXPECT_EQ(parse_state_filter(state_filter_name(filter)), filter);
  }
  EXPECT_EQ(parse_state_filter("succeeded"), std::nullopt);
  EXPECT_EQ(parse_state_filter(""), std::nullopt);
}

TEST(TopLayout, ACancelAsksFirstInTheFooter)
{
  const TopModel model = sample_model();
  TopViewState view;
  view.confirming = "2nk5t7f30002";
  const auto lines = layout_top(model, view, 60, 24);
  EXPECT_EQ(lines.back().text.rfind("cancel 2nk5t7f30002? y", 0), 0u) << lines.back().text;
}
