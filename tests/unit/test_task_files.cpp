#include <bgtask/store/task_files.hpp>

#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>

using bgtask::parse_task_file_name;
using bgtask::TaskFileKind;

namespace {

constexpr const char* k_id = "01hx2k3m4n5p";

void expect_task_file(std::string_view name, TaskFileKind kind)
{
  const auto parsed = parse_task_file_name(name);
  ASSERT_TRUE(parsed.has_value()) << name;
  EXPECT_EQ(parsed->id, k_id) << name;
  EXPECT_EQ(parsed->kind, kind) << name;
}

} // namespace

TEST(TaskFiles, NamesTheFilesOfATask)
{
  EXPECT_EQ(bgtask::status_file_name(k_id), "01hx2k3m4n5p.status.json");
  EXPECT_EQ(bgtask::output_file_name(k_id), "01hx2k3m4n5p.output");
  EXPECT_EQ(bgtask::lock_file_name(k_id), "01hx2k3m4n5p.lock");
  EXPECT_EQ(bgtask::outcome_file_name(k_id), "01hx2k3m4n5p.outcome.json");
}

TEST(TaskFiles, NamesTempsHiddenWithSixteenHexDigits)
{
  const std::string temp = bgtask::temp_file_name(bgtask::status_file_name(k_id));
  EXPECT_TRUE(
    std::regex_match(temp, std::regex(R"(\.01hx2k3m4n5p\.status\.json\.[0-9a-f]{16}\.tmp)")))
    << temp;
}

TEST(TaskFiles, NamesEveryTempDifferently)
{
  std::set<std::string> names;
  for (int i = 0; i < 100; ++i) {
    names.insert(bgtask::temp_file_name(bgtask::status_file_name(k_id)));
  }
  EXPECT_EQ(names.size(), 100u);
}

TEST(TaskFiles, ParsesTheNamesItMakes)
{
  expect_task_file(bgtask::status_file_name(k_id), TaskFileKind::status);
  expect_task_file(bgtask::output_file_name(k_id), TaskFileKind::output);
  expect_task_file(bgtask::lock_file_name(k_id), TaskFileKind::lock);
  expect_task_file(bgtask::outcome_file_name(k_id), TaskFileKind::outcome);
  expect_task_file(bgtask::temp_file_name(bgtask::status_file_name(k_id)), TaskFileKind::temp);
  // As a Slurm job's wrapper names its temp (slurm_job_wrapper.cpp).
  expect_task_file(".01hx2k3m4n5p.outcome.json.0123abcd4567ef89.tmp", TaskFileKind::temp);
}

TEST(TaskFiles, ParsesTempsOfAnyTaskFile)
{
  expect_task_file(".01hx2k3m4n5p.status.json.0123456789abcdef.tmp", TaskFileKind::temp);
  expect_task_file(".01hx2k3m4n5p.output.0123456789abcdef.tmp", TaskFileKind::temp);
}

TEST(TaskFiles, IgnoresNamesThatAreNotTaskFiles)
{
  for (const std::string_view name : {
         "",
         ".",
         "..",
         ".nfs000000000123abcd00000001",
         "README",
         "01hx2k3m4n5p",
         "01hx2k3m4n5p.",
         "01hx2k3m4n5p.json",
         "01hx2k3m4n5p.status.json.bak",
         "01hx2k3m4n5p.status.jsonx",
         "x01hx2k3m4n5p.status.json",
         "01hx2k3m4n5.status.json",
         "01hx2k3m4n5pq.status.json",
         "01HX2K3M4N5P.status.json",
         "01hx2k3m4n5i.status.json",
         "01hx2k3m4n/p.output",
         "../01hx2k3m.lock",
         "01hx2k3m4n5p.output~",
         "01hx2k3m4n5p.lock.tmp",
         ".01hx2k3m4n5p",
         ".01hx2k3m4n5p.status.json",
         ".01hx2k3m4n5ptmp",
         ".01HX2K3M4N5P.status.json.0123456789abcdef.tmp",
         ".0123.tmp",
         ".tmp",
       }) {
    EXPECT_FALSE(parse_task_file_name(name).has_value()) << "'" << name << "'";
  }
}

TEST(TaskFiles, IgnoresNamesWithEmbeddedNul)
{
  const std::string name = std::string("01hx2k3m4n5p") + '\0' + ".output";
  EXPECT_FALSE(parse_task_file_name(name).has_value());
}
