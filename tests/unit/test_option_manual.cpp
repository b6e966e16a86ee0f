#include <bgtask/cli/command_line.hpp>
#include <bgtask/cli/global_options.hpp>
#include <bgtask/cli/option_manual.hpp>
#include <bgtask/commands/table.hpp>

#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

using namespace bgtask;

namespace {

// The long names of the option entries in scdoc `text`, in order.
std::vector<std::string> entry_names(const std::string& text)
{
  static const std::regex heading(R"(^(\*-[a-zA-Z]\*, )?\*--([a-z0-9-]+)\*)");
  std::vector<std::string> names;
  std::size_t at = 0;
  while (at < text.size()) {
    const auto end = text.find('\n', at);
    const std::string line = text.substr(at, end == std::string::npos ? end : end - at);
    at = end == std::string::npos ? text.size() : end + 1;
    std::smatch match;
    if (std::regex_search(line, match, heading)) {
      names.push_back(match[2]);
    }
  }
  return names;
}

// A page with one section per command that is shown, each with its marker.
std::string page_with_every_marker()
{
  std::string page = "bgtask(1)\n\n# GLOBAL OPTIONS\n\n; options: global\n\n# COMMANDS\n";
  for (const auto& command : all_commands()) {
    if (!is_hidden(command)) {
      page +=
        "\n## " + std::string(command.name) + "\n\n; options: " + std::string(command.name) + "\n";
    }
  }
  return page;
}

} // namespace

TEST(OptionManual, AnEntryHasItsNamesThenItsSummaryAsASentenceAndItsDetails)
{
  po::options_description options;
  options.add_options()("state,s", po::value<std::string>()->value_name("S[,S...]"),
                        "only tasks in `timed_out` or *\n"
                        "Details with `--name` and a_b.");
  EXPECT_EQ(format_options_scdoc(options),
            "*-s*, *--state* _S[,S...]_\n"
            "\tOnly tasks in *timed\\_out* or \\*. Details with *--name* and a\\_b.\n");
}

TEST(OptionManual, EachCommandsMarkerBecomesExactlyTheOptionsOfItsTable)
{
  const auto page = expand_option_markers(page_with_every_marker(), all_commands());
  ASSERT_TRUE(page.has_value()) << page.error();
  for (const auto& command : all_commands()) {
    if (is_hidden(command)) {
      continue;
    }
    const std::string title = "\n## " + std::string(command.name) + "\n";
    const auto begin = page->find(title);
    ASSERT_NE(begin, std::string::npos) << command.name;
    const auto end = page->find("\n## ", begin + 1);
    const std::string section = page->substr(begin, end == std::string::npos ? end : end - begin);
    std::vector<std::string> declared;
    const po::options_description options = visible_options(command);
    for (const auto& option : options.options()) {
      if (option->long_name() != "help") {
        declared.push_back(option->long_name());
      }
    }
    EXPECT_EQ(entry_names(section), declared) << command.name;
  }
}

TEST(OptionManual, APageMissingAMarkerOrNamingAnUnknownCommandIsRefused)
{
  const std::string page = page_with_every_marker();
  const auto without_wait = std::regex_replace(page, std::regex("; options: wait\n"), "");
  const auto missing = expand_option_markers(without_wait, all_commands());
  ASSERT_FALSE(missing.has_value());
  EXPECT_NE(missing.error().find("wait"), std::string::npos) << missing.error();
  EXPECT_FALSE(expand_option_markers(page + "; options: nosuch\n", all_commands()).has_value());
  EXPECT_FALSE(expand_option_markers(page + "; options: list\n", all_commands()).has_value());
  EXPECT_FALSE(expand_option_markers(page + "; options: __complete\n", all_commands()).has_value());
}

TEST(OptionManual, TheGlobalMarkerBecomesTheDeclaredGlobalOptions)
{
  const auto page = expand_option_markers(page_with_every_marker(), all_commands());
  ASSERT_TRUE(page.has_value()) << page.error();
  const auto begin = page->find("# GLOBAL OPTIONS\n");
  const auto end = page->find("# COMMANDS\n");
  ASSERT_NE(begin, std::string::npos);
  std::vector<std::string> declared;
  const po::options_description options = global_options();
  for (const auto& option : options.options()) {
    declared.push_back(option->long_name());
  }
  EXPECT_EQ(entry_names(page->substr(begin, end - begin)), declared);
  const auto without =
    std::regex_replace(page_with_every_marker(), std::regex("; options: global\n"), "");
  const auto missing = expand_option_markers(without, all_commands());
  ASSERT_FALSE(missing.has_value());
  EXPECT_NE(missing.error().find("global"), std::string::npos) << missing.error();
}
