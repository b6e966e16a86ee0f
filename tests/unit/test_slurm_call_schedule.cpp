// The Slurm call schedule on a fake clock: however often jobs change or
// new ones appear, at most 12 calls fall in any minute and no gap between
// rounds exceeds 15 s.

#include <bgtask/exec/slurm/slurm_call_schedule.hpp>

#include <gtest/gtest.h>

#include <random>
#include <vector>

using bgtask::SlurmCallSchedule;
using Clock = SlurmCallSchedule::Clock;
using std::chrono::milliseconds;

namespace {

struct Run
{
  std::vector<Clock::time_point> calls;
  std::vector<Clock::time_point> rounds;
};

// Runs rounds for `length`: each makes `cost(i)` calls 20 ms apart and
// reports a change if `changed(i)`; `urgent(i)` asks for the round at once.
template <typename Cost, typename Changed, typename Urgent>
Run simulate(milliseconds length, Cost cost, Changed changed, Urgent urgent)
{
  SlurmCallSchedule schedule;
  Run run;
  const Clock::time_point start{};
  auto at = start;
  for (std::size_t i = 0; at < start + length; ++i) {
    at = schedule.next_round(at, urgent(i));
    run.rounds.push_back(at);
    for (std::size_t c = 0; c < cost(i); ++c) {
      schedule.note_call(at);
      run.calls.push_back(at);
      at += milliseconds(20);
    }
    schedule.round_done(at, changed(i));
  }
  return run;
}

std::size_t most_in_a_minute(const std::vector<Clock::time_point>& calls)
{
  std::size_t most = 0;
  for (std::size_t i = 0; i < calls.size(); ++i) {
    std::size_t n = 0;
    for (std::size_t j = i; j < calls.size() && calls[j] < calls[i] + milliseconds(60000); ++j) {
      ++n;
    }
    most = std::max(most, n);
  }
  return most;
}

milliseconds longest_gap(const std::vector<Clock::time_point>& rounds)
{
  milliseconds longest{0};
  for (std::size_t i = 1; i < rounds.size(); ++i) {
    longest =
      std::max(longest, std::chrono::duration_cast<milliseconds>(rounds[i] - rounds[i - 1]));
  }
  return longest;
}

// The round's own calls take up to 40 ms, counted from its first.
constexpr milliseconds k_slack{100};

} // namespace

TEST(SlurmCallSchedule, BacksOffFromOneSecondToFifteen)
{
  // The first round learns every job's state: a change.
  const auto run = simulate(
    milliseconds(120000), [](std::size_t) { return std::size_t{1}; },
    [](std::size_t i) { return i == 0; }, [](std::size_t) { return false; });
  ASSERT_GE(run.rounds.size(), 6U);
  const Clock::time_point start{};
  EXPECT_EQ(run.rounds[0], start);
  EXPECT_LE(run.rounds[1] - run.rounds[0], milliseconds(1000) + k_slack);
  EXPECT_LE(longest_gap(run.rounds), milliseconds(15000) + k_slack);
  EXPECT_GE(run.rounds.back() - run.rounds[run.rounds.size() - 2], milliseconds(15000));
}

TEST(SlurmCallSchedule, ChangesEveryRoundNeverBlindLongerThanTheLongestGap)
{
  // The old failure: each change restarted the backoff at 1 s, the budget
  // was spent in half a minute and the waiter sat blind for the rest.
  const auto run = simulate(
    milliseconds(600000), [](std::size_t) { return std::size_t{2}; },
    [](std::size_t) { return true; }, [](std::size_t) { return false; });
  EXPECT_LE(most_in_a_minute(run.calls), SlurmCallSchedule::k_calls_per_minute);
  EXPECT_LE(longest_gap(run.rounds), milliseconds(15000) + k_slack);
}

TEST(SlurmCallSchedule, UrgentRoundsStillKeepTheBudgetAndTheLongestGap)
{
  const auto run = simulate(
    milliseconds(600000), [](std::size_t) { return std::size_t{2}; },
    [](std::size_t) { return true; }, [](std::size_t) { return true; });
  EXPECT_LE(most_in_a_minute(run.calls), SlurmCallSchedule::k_calls_per_minute);
  EXPECT_LE(longest_gap(run.rounds), milliseconds(15000) + k_slack);
  // Urgent rounds still come as often as the budget allows: 12 calls of 2
  // a round in a minute is 6 rounds, but after the first burst the pace is
  // at least one round every 15 s.
  EXPECT_GE(run.calls.size(), 2 * 600 / 15);
}

TEST(SlurmCallSchedule, RandomDemandHoldsBothBounds)
{
  std::mt19937 random(42);
  std::vector<std::size_t> costs;
  std::vector<bool> changes;
  std::vector<bool> urgency;
  for (int i = 0; i < 2000; ++i) {
    costs.push_back(1 + static_cast<std::size_t>(random() % 2));
    changes.push_back(random() % 3 == 0);
    urgency.push_back(random() % 4 == 0);
  }
  const auto run = simulate(
    milliseconds(1800000), [&](std::size_t i) { return costs[i % costs.size()]; },
    [&](std::size_t i) { return changes[i % changes.size()]; },
    [&](std::size_t i) { return urgency[i % urgency.size()]; });
  EXPECT_LE(most_in_a_minute(run.calls), SlurmCallSchedule::k_calls_per_minute);
  EXPECT_LE(longest_gap(run.rounds), milliseconds(15000) + k_slack);
}

TEST(SlurmCallSchedule, HurryStartsTheBackoffOver)
{
  SlurmCallSchedule schedule;
  Clock::time_point at{};
  for (int i = 0; i < 4; ++i) {
    at = schedule.next_round(at, false);
    schedule.note_call(at);
    schedule.round_done(at, false);
  }
  EXPECT_GE(schedule.next_round(at, false) - at, milliseconds(8000));
  schedule.hurry();
  EXPECT_LE(schedule.next_round(at, false) - at, milliseconds(1000));
}

TEST(SlurmCallSchedule, AnUrgentRoundComesASecondAfterTheLast)
{
  SlurmCallSchedule schedule;
  Clock::time_point at{};
  EXPECT_EQ(schedule.next_round(at, true), at); // the first round: at once
  for (int i = 0; i < 4; ++i) {
    at = schedule.next_round(at, false);
    schedule.note_call(at);
    schedule.round_done(at, false);
  }
  // Backed off to 15 s; a job that has ended is asked about 1 s on.
  EXPECT_GE(schedule.next_round(at, false) - at, milliseconds(15000));
  EXPECT_EQ(schedule.next_round(at, true) - at, milliseconds(1000));
  EXPECT_EQ(schedule.next_round(at + milliseconds(3000), true) - at, milliseconds(3000));
}

TEST(SlurmCallSchedule, AfterTheFirstBackoffAJobThatEndedIsAskedAboutWithinASecond)
{
  // squeue alone each round (1 call): the job seen queued, then running
  // (two changes), then backing off: 0, 1, 2, 4, 8 s. A job whose file says
  // it was signalled at 9 s is asked about at 9 s, not held back until the
  // first calls leave the window (which reserving 2 calls a round did).
  SlurmCallSchedule schedule;
  Clock::time_point at{};
  for (int i = 0; i < 5; ++i) {
    at = schedule.next_round(at, false);
    schedule.note_call(at);
    schedule.round_done(at, i < 2);
  }
  EXPECT_EQ(at, Clock::time_point(milliseconds(8000)));
  const Clock::time_point ended(milliseconds(9000));
  EXPECT_EQ(schedule.next_round(ended, true), ended);
}
