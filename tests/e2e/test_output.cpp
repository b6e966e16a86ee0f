#include "e2e/e2e_support.hpp"
#include <fstream>

using e2e::Result;
using Output = e2e::E2eTest;
using namespace std::chrono_literals;

TEST_F(Output, PrintsTheWholeOutput)
{
  const std::string id = start({"-c", "seq 1 5; echo err >&2"});
  EXPECT_EQ(wait_for(id), 0);
  const Result result = bg({"output", id});
  EXPECT_EQ(result.exit_code, 0) << result;
  EXPECT_EQ(result.out, "1\n2\n3\n4\n5\nerr\n");
  EXPECT_EQ(result.err, "");
}

TEST_F(Output, PrintsTheLastLinesWithTail)
{
  const std::string id = start({"--", "seq", "1", "5"});
  EXPECT_EQ(wait_for(id), 0);
  EXPECT_EQ(bg({"output", "--tail", "2", id}).out, "4\n5\n");
  EXPECT_EQ(bg({"output", "--tail", "0", id}).out, "");
  EXPECT_EQ(bg({"output", "--tail", "9", id}).out, "1\n2\n3\n4\n5\n");
}

TEST_F(Output, PassesBinaryOutputThroughUnchangedWhenNotATerminal)
{
  const std::string id = start({"--", "printf", "\\033[31m\\377\\000x"});
  EXPECT_EQ(wait_for(id), 0);
  EXPECT_EQ(bg({"output", id}).out, std::string("\033[31m\377\0x", 8));
}

TEST_F(Output, FollowStreamsUntilTheTaskEndsAndExitsWithItsStatus)
{
  const std::string id =
    start({"--cwd", work().string(), "-c",
           "echo one; while [ ! -e gate ]; do sleep 0.02; done; echo two; exit 7"});
  e2e::Process follow = bg_async({"output", "--follow", id});
  // "one" arrives while the task still waits for the gate: output is streamed.
  EXPECT_TRUE(follow.wait_for_stdout("one\n"));
  EXPECT_EQ(state_of(id), "running");
  std::ofstream(work() / "gate").close();
  const Result result = follow.finish();
  EXPECT_FALSE(result.hung) << result;
  EXPECT_EQ(result.exit_code, 7) << result;
  EXPECT_EQ(result.out, "one\ntwo\n");
  EXPECT_EQ(state_of(id), "failed");
}

TEST_F(Output, FollowOfAFinishedTaskPrintsItAllAndExitsWithItsStatus)
{
  const std::string ok = start({"-c", "echo done"});
  const std::string killed = start({"-c", "echo bye; kill -9 $$"});
  EXPECT_EQ(wait_for(ok), 0);
  EXPECT_EQ(wait_for(killed), 137);
  const Result first = bg({"output", "--follow", ok});
  EXPECT_EQ(first.exit_code, 0) << first;
  EXPECT_EQ(first.out, "done\n");
  const Result second = bg({"output", "-f", killed});
  EXPECT_EQ(second.exit_code, 137) << second;
  EXPECT_EQ(second.out, "bye\n");
}

TEST_F(Output, FollowWithTailStartsFromTheLastLines)
{
  const std::string id = start(
    {"--cwd", work().string(), "-c", "seq 1 5; while [ ! -e gate ]; do sleep 0.02; done; echo 6"});
  EXPECT_TRUE(wait_for_output(id, "5\n"));
  e2e::Process follow = bg_async({"output", "--follow", "--tail", "2", id});
  EXPECT_TRUE(follow.wait_for_stdout("5\n"));
  std::ofstream(work() / "gate").close();
  const Result result = follow.finish();
  EXPECT_EQ(result.exit_code, 0) << result;
  EXPECT_EQ(result.out, "4\n5\n6\n");
}

TEST_F(Output, TailsLinesLongerThanOneReadChunk)
{
  // Two lines of 100 000 and 70 000 bytes, then a short one.
  const std::string id = start({"-c", "head -c 100000 /dev/zero | tr '\\0' a; echo; "
                                      "head -c 70000 /dev/zero | tr '\\0' b; echo; echo end"});
  EXPECT_EQ(wait_for(id), 0);
  const std::string a(100000, 'a');
  const std::string b(70000, 'b');
  EXPECT_EQ(bg({"output", "--tail", "2", id}).out, b + "\nend\n");
  EXPECT_EQ(bg({"output", "--tail", "3", id}).out, a + "\n" + b + "\nend\n");
  EXPECT_EQ(bg({"output", id}).out.size(), a.size() + b.size() + 6);
}
