#include "e2e/e2e_support.hpp"
#include <algorithm>
#include <csignal>
#include <fstream>

namespace json = boost::json;
namespace fs = std::filesystem;

using e2e::Result;
using namespace std::chrono_literals;

namespace {

class Queue : public e2e::E2eTest
{
protected:
  // A shell loop that ends once the file `go` exists in the work directory.
  std::string blocker() const
  {
    return "while [ ! -e '" + (work() / "go").string() + "' ]; do sleep 0.05; done";
  }

  void release() const { std::ofstream(work() / "go").put('\n'); }

  std::string string_field(const std::string& id, const char* key)
  {
    const auto r = record(id);
    return r.at(key).is_string() ? std::string(r.at(key).get_string()) : "";
  }

  int owner_pid(const std::string& id)
  {
    return static_cast<int>(record(id).at("owner").at("pid").to_number<std::int64_t>());
  }

  void kill_and_wait(int pid)
  {
    ASSERT_GT(pid, 1);
    ASSERT_EQ(::kill(pid, SIGKILL), 0);
    EXPECT_TRUE(e2e::eventually([&] { return !e2e::is_alive(pid); }));
  }

  bool becomes(const std::string& id, const std::string& state)
  {
    return e2e::eventually([&] { return state_of(id) == state; });
  }
};

using After = Queue;

std::string read_file(const fs::path& path)
{
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

} // namespace

TEST_F(Queue, RunsTwentyTasksInOrderOfCreationTwoAtATime)
{
  const std::string log = (work() / "log").string();
  const std::string script = "echo + >> '" + log + "'; sleep 0.1; echo - >> '" + log + "'";
  std::vector<std::string> ids;
  for (int i = 0; i < 20; ++i) {
    ids.push_back(start({"--queue", "build", "--slots", "2", "-c", script}));
  }
  std::vector<std::string> wait_args{"wait"};
  wait_args.insert(wait_args.end(), ids.begin(), ids.end());
  const Result waited = bg(wait_args);
  ASSERT_EQ(waited.exit_code, 0) << waited;

  // Each line is written while the task holds its slot, so no prefix of the
  // log may show more than two tasks at once.
  int running = 0;
  int most = 0;
  int finished = 0;
  for (const char c : read_file(log)) {
    running += c == '+' ? 1 : c == '-' ? -1 : 0;
    finished += c == '-' ? 1 : 0;
    most = std::max(most, running);
  }
  EXPECT_EQ(finished, 20);
  EXPECT_LE(most, 2);
  // First come, first served. Two slots freed at the same moment admit two
  // tasks at once, in creation order, but either may start its command
  // first; so a task starts after every task created two places before it.
  for (std::size_t i = 2; i < ids.size(); ++i) {
    EXPECT_LE(string_field(ids[i - 2], "started_at"), string_field(ids[i], "started_at"))
      << ids[i - 2] << " started after " << ids[i];
  }
  const Result settings = bg({"queue", "build", "--json"});
  ASSERT_EQ(settings.exit_code, 0) << settings;
  const auto queues = e2e::parse_json(settings.out).as_array();
  ASSERT_EQ(queues.size(), 1U);
  EXPECT_EQ(queues[0].at("slots"), json::value(2));
}

TEST_F(Queue, AQueuedTaskIsListedAsQueuedAndStartsWhenTheSlotFrees)
{
  const std::string first = start({"--queue", "q", "-c", blocker()});
  const std::string second = start({"--queue", "q", "--", "true"});
  ASSERT_TRUE(becomes(first, "running"));
  EXPECT_EQ(state_of(second), "queued");
  EXPECT_EQ(string_field(second, "waiting_for"), "slot");
  const Result list = bg({"list", "--state", "queued"});
  EXPECT_NE(list.out.find(second), std::string::npos) << list;
  const Result shown = bg({"queue", "q"});
  EXPECT_NE(shown.out.find("running  " + first), std::string::npos) << shown;
  EXPECT_NE(shown.out.find("queued   " + second), std::string::npos) << shown;
  release();
  EXPECT_EQ(wait_for(second), 0);
  EXPECT_EQ(wait_for(first), 0);
}

TEST_F(Queue, AQueuedTaskIsARecordWithoutAProcess)
{
  const std::string holder = start({"--queue", "q", "-c", blocker()});
  const std::string waiting = start({"--queue", "q", "-c", "echo ran"});
  ASSERT_TRUE(becomes(holder, "running"));
  const auto r = record(waiting);
  EXPECT_TRUE(!r.contains("owner") || r.at("owner").is_null())
    << "a queued task names no supervisor";
  EXPECT_EQ(string_field(waiting, "waiting_for"), "slot");
  // Reconciliation leaves it queued: it has no process to lose.
  ASSERT_EQ(bg({"list"}).exit_code, 0);
  EXPECT_EQ(state_of(waiting), "queued");
  release();
  EXPECT_EQ(wait_for(waiting), 0);
  EXPECT_EQ(output_of(waiting), "ran\n");
}

TEST_F(Queue, ASupervisorKilledWhileRunningFreesItsSlot)
{
  const std::string holder = start({"--queue", "q", "--", "sleep", "60"});
  const std::string next = start({"--queue", "q", "--", "true"});
  ASSERT_TRUE(becomes(holder, "running"));
  const auto r = record(holder);
  kill_and_wait(static_cast<int>(r.at("owner").at("pid").to_number<std::int64_t>()));
  kill_and_wait(static_cast<int>(r.at("child").at("pid").to_number<std::int64_t>()));
  // The supervisor that should have handed the slot on is gone: the next
  // invocation (this wait) does it.
  EXPECT_EQ(wait_for(next), 0);
  EXPECT_EQ(state_of(holder), "lost");
}

TEST_F(Queue, RaisingTheSlotCountStartsWaitingTasks)
{
  const std::string first = start({"--queue", "q", "-c", blocker()});
  const std::string second = start({"--queue", "q", "--", "true"});
  ASSERT_TRUE(becomes(first, "running"));
  EXPECT_EQ(state_of(second), "queued");
  const Result raised = bg({"queue", "q", "--slots", "2"});
  ASSERT_EQ(raised.exit_code, 0) << raised;
  EXPECT_EQ(wait_for(second), 0);
  EXPECT_EQ(state_of(first), "running");
  release();
  EXPECT_EQ(wait_for(first), 0);
}

TEST_F(Queue, ZeroSlotsPausesTheQueue)
{
  ASSERT_EQ(bg({"queue", "paused", "--slots", "0"}).exit_code, 0);
  const std::string id = start({"--queue", "paused", "--", "true"});
  const Result waited = bg({"wait", "--timeout", "300ms", id});
  EXPECT_EQ(waited.exit_code, 4) << waited;
  EXPECT_EQ(state_of(id), "queued");
  ASSERT_EQ(bg({"queue", "paused", "--slots", "1"}).exit_code, 0);
  EXPECT_EQ(wait_for(id), 0);
}

TEST_F(Queue, CancellingAQueuedTaskEndsItWithoutRunningIt)
{
  const std::string holder = start({"--queue", "q", "-c", blocker()});
  const std::string waiting = start({"--queue", "q", "-c", "echo ran"});
  const Result cancelled = bg({"cancel", waiting});
  ASSERT_EQ(cancelled.exit_code, 0) << cancelled;
  EXPECT_EQ(state_of(waiting), "cancelled");
  EXPECT_EQ(wait_for(waiting), 125);
  EXPECT_EQ(output_of(waiting), "");
  release();
  EXPECT_EQ(wait_for(holder), 0);
}

TEST_F(Queue, RefusesAnInvalidQueueNameOrSlotsWithoutQueue)
{
  EXPECT_EQ(bg({"start", "--queue", "../x", "--", "true"}).exit_code, 2);
  EXPECT_EQ(bg({"start", "--queue", "-x", "--", "true"}).exit_code, 2);
  EXPECT_EQ(bg({"start", "--slots", "2", "--", "true"}).exit_code, 2);
  EXPECT_EQ(bg({"queue", "q", "--slots", "1001"}).exit_code, 2);
  EXPECT_TRUE(dir_entries().empty());
}

TEST_F(After, StartsOnlyOnceItsDependenciesSucceeded)
{
  const std::string first = start({"-c", blocker()});
  const std::string quick = start({"--", "true"});
  const std::string then = start({"--after", first + "," + quick, "-c", "echo ran"});
  EXPECT_EQ(wait_for(quick), 0);
  EXPECT_EQ(state_of(then), "queued");
  EXPECT_EQ(string_field(then, "waiting_for"), "after");
  release();
  EXPECT_EQ(wait_for(then), 0);
  EXPECT_EQ(output_of(then), "ran\n");
}

TEST_F(After, FailsWithoutRunningWhenADependencyFails)
{
  const std::string failing = start({"-c", "sleep 0.1; exit 3"});
  const std::string then = start({"--after", failing.substr(0, 8), "-c", "echo ran"});
  EXPECT_EQ(wait_for(then), 1);
  EXPECT_EQ(state_of(then), "failed");
  EXPECT_EQ(string_field(then, "error"),
            "dependency " + failing + " did not succeed: failed (exit 3)");
  EXPECT_EQ(output_of(then), "");
  EXPECT_TRUE(record(then).at("started_at").is_null());
}

TEST_F(After, FailsWhenADependencyIsCancelledOrLost)
{
  const std::string cancelled = start({"-c", blocker()});
  const std::string lost = start({"-c", blocker()});
  const std::string after_cancelled = start({"--after", cancelled, "--", "true"});
  const std::string after_lost = start({"--after", lost, "--", "true"});
  ASSERT_EQ(bg({"cancel", cancelled}).exit_code, 0);
  const auto r = record(lost);
  kill_and_wait(static_cast<int>(r.at("owner").at("pid").to_number<std::int64_t>()));
  kill_and_wait(static_cast<int>(r.at("child").at("pid").to_number<std::int64_t>()));
  EXPECT_EQ(wait_for(after_cancelled), 1);
  EXPECT_EQ(wait_for(after_lost), 1);
  EXPECT_NE(string_field(after_cancelled, "error").find("cancelled"), std::string::npos);
  EXPECT_NE(string_field(after_lost, "error").find("lost"), std::string::npos);
}

TEST_F(After, AnUnknownDependencyIsAUsageError)
{
  const Result result = bg({"start", "--after", "zzzzzzzzzzzz", "--", "true"});
  EXPECT_EQ(result.exit_code, 2) << result;
  EXPECT_NE(result.err.find("no task"), std::string::npos) << result;
}
