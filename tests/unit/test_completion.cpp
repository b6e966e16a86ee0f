#include <bgtask/cli/command.hpp>
#include <bgtask/cli/command_line.hpp>
#include <bgtask/cli/completion.hpp>
#include <bgtask/commands/table.hpp>
#include <bgtask/util/error.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <string>
#include <string_view>

using namespace bgtask;

namespace {

// A task directory that does not exist: no IDs, nothing created.
const std::optional<std::string> k_no_dir = "/nonexistent/bgtask-completion-test";

std::vector<std::string> offered(const std::vector<std::string>& words)
{
  std::vector<std::string> result;
  for (const auto& candidate : complete_command_line(all_commands(), words, k_no_dir).candidates) {
    result.push_back(candidate.word);
  }
  return result;
}

bool has(const std::vector<std::string>& words, const std::string& word)
{
  return std::find(words.begin(), words.end(), word) != words.end();
}

const Command& command_named(std::string_view name)
{
  const auto commands = all_commands();
  return *std::find_if(commands.begin(), commands.end(),
                       [&](const Command& c) { return c.name == name; });
}

} // namespace

TEST(Completion, OffersEveryVisibleCommandButNoHiddenOne)
{
  const auto words = offered({""});
  for (const auto& command : all_commands()) {
    EXPECT_EQ(has(words, std::string(command.name)), !is_hidden(command)) << command.name;
  }
  EXPECT_TRUE(has(words, "help"));
  EXPECT_EQ(offered({"cle"}), (std::vector<std::string>{"cleanup"}));
  EXPECT_TRUE(offered({"__complete", ""}).empty());
}

TEST(Completion, OffersTheOptionsOfTheCommandWithoutPositionalOnes)
{
  const auto words = offered({"cancel", "--"});
  EXPECT_TRUE(has(words, "--grace"));
  EXPECT_TRUE(has(words, "--json"));
  EXPECT_TRUE(has(words, "--help"));
  EXPECT_FALSE(has(words, "--id"));
  EXPECT_EQ(offered({"output", "--fo"}), (std::vector<std::string>{"--follow"}));
  EXPECT_TRUE(has(offered({"--dir", "/tmp", "list", "--"}), "--state"));
}

TEST(Completion, OffersGlobalOptionsBeforeTheCommand)
{
  EXPECT_EQ(offered({"--v"}), (std::vector<std::string>{"--version"}));
  EXPECT_EQ(complete_command_line(all_commands(), {"--dir", ""}, k_no_dir).kind,
            CompletionKind::directories);
}

TEST(Completion, CompletesStatesAsACommaSeparatedList)
{
  EXPECT_EQ(offered({"list", "--state", "fa"}), (std::vector<std::string>{"failed"}));
  EXPECT_EQ(offered({"list", "--state", "failed,lo"}), (std::vector<std::string>{"failed,lost"}));
  EXPECT_FALSE(has(offered({"list", "--state", "failed,"}), "failed,failed"));
  EXPECT_EQ(offered({"list", "--state=cor"}), (std::vector<std::string>{"--state=corrupt"}));
  EXPECT_FALSE(has(offered({"cleanup", "--state", ""}), "running"));
}

TEST(Completion, CompletesFixedValues)
{
  EXPECT_EQ(offered({"list", "--format", "js"}), (std::vector<std::string>{"json", "jsonl"}));
  EXPECT_EQ(offered({"start", "--executor=l"}), (std::vector<std::string>{"--executor=local"}));
}

TEST(Completion, HandsPathsAndCommandsToTheShell)
{
  const auto cwd = complete_command_line(all_commands(), {"start", "--cwd=/us"}, k_no_dir);
  EXPECT_EQ(cwd.kind, CompletionKind::directories);
  EXPECT_EQ(cwd.prefix, "--cwd=");
  EXPECT_EQ(
    complete_command_line(all_commands(), {"start", "--name", "x", "--", ""}, k_no_dir).kind,
    CompletionKind::commands);
  EXPECT_EQ(complete_command_line(all_commands(), {"start", "--", "ls", ""}, k_no_dir).kind,
            CompletionKind::files);
  EXPECT_EQ(complete_command_line(all_commands(), {"start", "-c", ""}, k_no_dir).kind,
            CompletionKind::words);
}

TEST(Completion, SkipsOptionValuesWhenCountingArguments)
{
  // `--tail 5` is an option and its value, so the ID is still to come.
  EXPECT_TRUE(offered({"output", "--tail", "5", ""}).empty());
  EXPECT_TRUE(offered({"rerun", "--env", "K=V", ""}).empty());
  // rerun takes one ID: after it, only options.
  EXPECT_TRUE(has(offered({"rerun", "2nk5t7f30b55", ""}), "--env-file"));
}

TEST(Completion, OffersNothingForUnknownCommandsOrBrokenWords)
{
  EXPECT_TRUE(offered({"frobnicate", ""}).empty());
  EXPECT_TRUE(offered({"list", "--st\tate"}).empty());
}

TEST(Completion, FormatsKindPrefixAndCandidatesLineByLine)
{
  Completion completion;
  completion.candidates = {{"list", "list tasks"}, {"--json", ""}};
  EXPECT_EQ(format_completion(completion), "words\nlist\tlist tasks\n--json\t\n");
  completion = {CompletionKind::directories, "--cwd=", {}};
  EXPECT_EQ(format_completion(completion), "dirs\t--cwd=\n");
}

namespace {

// A handler that must never run: describing a command does not call it.
int never_called(const GlobalOptions&, const CommandArgs&)
{
  ADD_FAILURE() << "a handler was called to describe its command";
  return 1;
}

po::options_description frob_options()
{
  po::options_description options;
  options.add_options()("speed", po::value<std::string>(), "how fast")("loud", "make noise");
  return options;
}

constexpr std::array<Command, 2> k_table{{
  {"frob", "frobnicate tasks", "ID... [--speed S] [--loud]", "Frobnicates.", frob_options,
   Operands::task_ids, never_called},
  {"zap", "zap everything", "", "Zaps.", nullptr, Operands::none, never_called},
}};

} // namespace

TEST(Completion, ReadsTheTableItIsGivenWithoutCallingHandlers)
{
  std::vector<std::string> commands;
  for (const auto& candidate : complete_command_line(k_table, {""}, k_no_dir).candidates) {
    commands.push_back(candidate.word);
  }
  EXPECT_EQ(commands, (std::vector<std::string>{"frob", "zap", "help"}));
  std::vector<std::string> options;
  for (const auto& candidate :
       complete_command_line(k_table, {"frob", "--"}, k_no_dir).candidates) {
    options.push_back(candidate.word);
  }
  // The global options that may follow a command's name come last.
  EXPECT_EQ(options, (std::vector<std::string>{"--speed", "--loud", "--help", "--dir", "--color"}));
  EXPECT_TRUE(complete_command_line(k_table, {"cancel", ""}, k_no_dir).candidates.empty());
}

TEST(CommandTable, AStartWithoutOptionsParsesAsOneWithThem)
{
  const auto& start = command_named("start");
  const auto bare = parse_command_args(start, {"--", "make", "-j"});
  ASSERT_TRUE(bare.has_value());
  EXPECT_TRUE(bare->options.empty());
  EXPECT_EQ(bare->command, (std::vector<std::string>{"make", "-j"}));
  const auto named = parse_command_args(start, {"--name", "b", "--", "make", "-j"});
  ASSERT_TRUE(named.has_value());
  EXPECT_EQ(named->options["name"].as<std::string>(), "b");
  EXPECT_EQ(named->command, bare->command);
}

TEST(CommandTable, ACommandThatNeedsAnIdRefusesNoArguments)
{
  try {
    parse_command_args(command_named("rerun"), {});
    ADD_FAILURE() << "rerun without an ID was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    EXPECT_NE(std::string(e.what()).find("give a task ID"), std::string::npos) << e.what();
  }
}

TEST(CommandTable, EveryCommandWithOptionsDeclaresThemAndItsHelp)
{
  for (const auto& command : all_commands()) {
    const auto visible = visible_options(command);
    EXPECT_NE(visible.find_nothrow("help", false), nullptr) << command.name;
    EXPECT_FALSE(command.summary.empty()) << command.name;
    EXPECT_FALSE(command.help.empty()) << command.name;
    if (command.operands != Operands::words) {
      EXPECT_NE(command.options, nullptr) << command.name;
    }
  }
}
