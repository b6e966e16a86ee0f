#include <bgtask/cli/command_line.hpp>
#include <bgtask/cli/completion.hpp>
#include <bgtask/cli/option_help.hpp>
#include <bgtask/commands/table.hpp>

#include <gtest/gtest.h>

#include <sstream>
#include <string>

using namespace bgtask;

namespace {

po::options_description one_detailed_option()
{
  po::options_description options;
  options.add_options()("name", po::value<std::string>(),
                        "a name to filter by\n"
                        "The details say much more than the summary line does, so much that "
                        "they take more than one line of an eighty-column terminal.");
  return options;
}

} // namespace

TEST(OptionHelp, SummaryAndDetailsAreTheTwoPartsOfTheDescription)
{
  const auto options = one_detailed_option();
  const auto& option = *options.options().front();
  EXPECT_EQ(option_summary(option), "a name to filter by");
  EXPECT_TRUE(option_details(option).starts_with("The details say"));
  po::options_description plain;
  plain.add_options()("json", "print JSON");
  EXPECT_EQ(option_summary(*plain.options().front()), "print JSON");
  EXPECT_TRUE(option_details(*plain.options().front()).empty());
}

TEST(OptionHelp, HelpShowsTheDetailsIndentedBelowTheSummaryWithin80Columns)
{
  const std::string help = format_option_help(one_detailed_option());
  std::istringstream lines(help);
  std::string line;
  std::vector<std::string> all;
  while (std::getline(lines, line)) {
    EXPECT_LE(line.size(), 80U) << line;
    all.push_back(line);
  }
  ASSERT_GE(all.size(), 4U) << help;
  EXPECT_EQ(all[1], "  --name N  a name to filter by");
  EXPECT_TRUE(all[2].starts_with("      The details say")) << all[2];
  EXPECT_TRUE(all[3].starts_with("      ")) << all[3];
}

TEST(OptionHelp, EveryOptionOfTheTableHasAOneLineSummaryAndOneParagraph)
{
  for (const auto& command : all_commands()) {
    const po::options_description options = visible_options(command);
    for (const auto& option : options.options()) {
      EXPECT_FALSE(option_summary(*option).empty()) << command.name << " --" << option->long_name();
      EXPECT_EQ(option_details(*option).find('\n'), std::string_view::npos)
        << command.name << " --" << option->long_name();
    }
  }
}

TEST(OptionHelp, CompletionDescribesAnOptionByItsSummaryOnly)
{
  const auto completion = complete_command_line(all_commands(), {"start", "--timeo"},
                                                "/nonexistent/bgtask-option-help-test");
  ASSERT_EQ(completion.candidates.size(), 1U);
  EXPECT_EQ(completion.candidates[0].word, "--timeout");
  EXPECT_EQ(completion.candidates[0].description, "stop the command after DUR (state timed_out)");
}
