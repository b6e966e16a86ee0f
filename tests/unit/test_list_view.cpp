#include <bgtask/cli/record_view.hpp>
#include <bgtask/util/table.hpp>

#include <gtest/gtest.h>

using namespace bgtask;

namespace {

TaskRecord finished_record(std::vector<std::string> command)
{
  TaskRecord record;
  record.id = "2nk5t7f30b55";
  record.command = std::move(command);
  record.cwd = "/srv/work";
  record.state = TaskState::succeeded;
  record.exit_code = 0;
  record.duration_s = 1.5;
  return record;
}

} // namespace

TEST(ListView, WideAddsTheDirectoryAndTheFullCommand)
{
  EXPECT_EQ(list_header(ListColumns::wide),
            (TableRow{"ID", "STATE", "EXIT", "STARTED", "ELAPSED", "NAME", "CWD", "COMMAND"}));
  const TableRow row = list_row(finished_record({"make", "-j4", "all"}), ListColumns::wide);
  ASSERT_EQ(row.size(), 8u);
  EXPECT_EQ(row[5], "-");
  EXPECT_EQ(row[6], "/srv/work");
  EXPECT_EQ(row[7], "make -j4 all");
}

TEST(ListView, NamesTheTaskOrShowsItsCommandShortened)
{
  auto named = finished_record({"make"});
  named.name = "build";
  EXPECT_EQ(list_row(named).back(), "build");
  EXPECT_EQ(list_row(finished_record({"echo", std::string(100, 'a')})).back(),
            "echo " + std::string(43, 'a') + "...");
  EXPECT_EQ(list_row(finished_record({"echo", "short"})).back(), "echo short");
}

TEST(ListView, ShortensBetweenCodePoints)
{
  auto record = finished_record({"/bin/sh", "-c", "é" + std::string(59, 'x')});
  record.shell = true;
  // 48 code points (é is 2 bytes), then the ellipsis.
  EXPECT_EQ(list_row(record).back(), "é" + std::string(47, 'x') + "...");
}

TEST(ListView, ColoursOnlyTheStateAndOnlyWhenAsked)
{
  auto record = finished_record({"true"});
  EXPECT_EQ(list_row(record, ListColumns::normal, Color::no)[1], "succeeded");
  EXPECT_EQ(list_row(record, ListColumns::normal, Color::yes)[1], "\x1b[32msucceeded\x1b[0m");
  record.state = TaskState::failed;
  EXPECT_EQ(list_row(record, ListColumns::normal, Color::yes)[1], "\x1b[31mfailed\x1b[0m");
  for (const auto& cell : list_row(record, ListColumns::wide, Color::yes)) {
    if (cell.find("failed") == std::string::npos) {
      EXPECT_EQ(cell.find('\x1b'), std::string::npos) << cell;
    }
  }
  EXPECT_EQ(corrupt_list_row("2nk5t7f30b55", "bad JSON", ListColumns::normal, Color::yes)[1],
            "\x1b[31mcorrupt\x1b[0m");
  EXPECT_EQ(corrupt_list_row("2nk5t7f30b55", "bad JSON", ListColumns::wide, Color::no).size(), 8u);
}

TEST(ListView, ColourTakesNoWidthInTheTable)
{
  const std::string plain =
    render_table({"ID", "STATE", "NAME"}, {{"a", "failed", "x"}, {"b", "succeeded", "y"}});
  const std::string coloured =
    render_table({"ID", "STATE", "NAME"},
                 {{"a", "\x1b[31mfailed\x1b[0m", "x"}, {"b", "\x1b[32msucceeded\x1b[0m", "y"}});
  std::string stripped = coloured;
  for (const std::string sgr : {"\x1b[31m", "\x1b[32m", "\x1b[0m"}) {
    for (auto at = stripped.find(sgr); at != std::string::npos; at = stripped.find(sgr)) {
      stripped.erase(at, sgr.size());
    }
  }
  EXPECT_EQ(stripped, plain);
}

TEST(ListView, InfoSaysWhyAQueuedTaskWaitsAndHowFarARunningOneIs)
{
  TaskRecord record = finished_record({"make"});
  EXPECT_EQ(list_info(record), "-");
  record.state = TaskState::queued;
  record.queue = "gpu";
  record.waiting_for = WaitingFor::slot;
  EXPECT_EQ(list_info(record), "slot in gpu");
  record.queue.reset();
  record.waiting_for = WaitingFor::after;
  record.after = {"2nk5t7f30b55", "2nk5t7f30b56"};
  EXPECT_EQ(list_info(record), "after 2nk5t7f30b55,2nk5t7f30b56");
  record.state = TaskState::running;
  record.progress = Progress{45.4, std::nullopt, std::nullopt, "linking", {}};
  EXPECT_EQ(list_info(record), "45% linking");
  record.progress = Progress{std::nullopt, 3, 7, std::nullopt, {}};
  record.pause.paused = true;
  EXPECT_EQ(list_info(record), "paused, 3/7");
  record.state = TaskState::failed;
  record.reason = "oom\nkilled";
  EXPECT_EQ(list_info(record), "oom\\x0akilled");
}
