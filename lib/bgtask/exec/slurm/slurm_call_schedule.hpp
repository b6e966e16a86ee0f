#pragma once

#include <chrono>
#include <cstddef>
#include <deque>
#include <optional>
#include <utility>

namespace bgtask {

// When one process may ask the Slurm controller (and accounting) again
// about the jobs it waits for. A round of questions costs at most
// k_round_cost client calls; rounds follow a backoff (1 s doubling to
// k_longest_gap, back to 1 s when a job changed state), and a round is
// only allowed where it leaves room, within k_calls_per_minute calls in
// any minute, for a round every k_longest_gap from then on (each costing
// as much as the costliest of the last minute). So the budget is never spent in a burst: while
// jobs are unfinished and rounds cost alike, no gap between rounds exceeds
// k_longest_gap, and next_round() is always when the next one happens. Time is given by the caller
// (steady clock, or a fake one in tests); not thread-safe.
class SlurmCallSchedule
{
public:
  using Clock = std::chrono::steady_clock;
  using Duration = std::chrono::milliseconds;

  static constexpr std::size_t k_calls_per_minute = 12;
  static constexpr std::size_t k_round_cost = 2; // squeue, then maybe sacct
  static constexpr Duration k_first_gap{1000};
  static constexpr Duration k_longest_gap{15000};
  static constexpr Duration k_window{60000};

  // The earliest time at or after `at` when a round may start: k_first_gap
  // after the last if `urgent` (a job not asked about yet, or one whose end
  // needs the controller's word), else after the backoff (the first round
  // at once); in both cases no earlier than the budget keeps room for the
  // rounds that follow.
  Clock::time_point next_round(Clock::time_point at, bool urgent) const;

  // Records one client call made at `at`.
  void note_call(Clock::time_point at);

  // Records that a round ended at `at`; `changed`: a job changed state
  // (the backoff starts over), else the gap doubles up to k_longest_gap.
  void round_done(Clock::time_point at, bool changed);

  // Starts the backoff over (after a cancel: the job ends within moments).
  void hurry() { m_gap = k_first_gap; }

  // The calls of the last k_window before `at`.
  std::size_t calls_within_window(Clock::time_point at) const;

private:
  // True if a round starting at `at` leaves room for one every
  // k_longest_gap after it.
  bool leaves_room(Clock::time_point at) const;

  std::deque<Clock::time_point> m_calls; // oldest first, the last minute or so
  std::optional<Clock::time_point> m_last_round;
  Duration m_gap = k_first_gap;
  std::size_t m_round_calls = 0;           // calls of the round under way
  std::size_t m_chain_cost = k_round_cost; // the most a round of the last minute cost
  std::deque<std::pair<Clock::time_point, std::size_t>> m_round_costs; // the last minute's
};

} // namespace bgtask
