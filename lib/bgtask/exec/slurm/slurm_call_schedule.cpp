#include <bgtask/exec/slurm/slurm_call_schedule.hpp>

#include <algorithm>
#include <vector>

namespace bgtask {

// Why the rule in leaves_room is enough: suppose the round at t0 was
// allowed, and the next comes k_longest_gap (G) later, at t1. For each k,
// the calls in (t1 + kG - 60 s, t1] are those of (t0 + (k+1)G - 60 s, t0]
// plus the round at t0, which t0's check counted as the first of its chain
// of rounds; so t1's check for k holds because t0's for k + 1 did, as long
// as rounds cost what the chain reserved (m_chain_cost, the most a round
// of the last minute cost: 1 for squeue alone, 2 with sacct). Windows that reach past t
// (kG >= 60 s) hold no past calls: there the check is the chain alone,
// at most 2 + 2k <= 12, true up to k = 5, the largest index the induction
// needs with G = 15 s. A round at most G after the last is therefore
// always allowed while rounds cost no more than in the last minute; one
// that costs more (accounting asked too) can push the next ones later.

namespace {

// How many rounds of the chain a window can reach (signed: durations are).
constexpr int k_chain = static_cast<int>(
  (SlurmCallSchedule::k_window.count() + SlurmCallSchedule::k_longest_gap.count() - 1) /
  SlurmCallSchedule::k_longest_gap.count());

} // namespace

std::size_t SlurmCallSchedule::calls_within_window(Clock::time_point at) const
{
  return static_cast<std::size_t>(std::count_if(
    m_calls.begin(), m_calls.end(), [&](auto t) { return t > at - k_window && t <= at; }));
}

bool SlurmCallSchedule::leaves_room(Clock::time_point at) const
{
  for (int k = 0; k <= k_chain + 1; ++k) {
    // The window that ends with the k-th round after this one, as far as
    // the calls up to now are concerned.
    const auto window_start = at + k * k_longest_gap - k_window;
    const auto past = static_cast<std::size_t>(std::count_if(
      m_calls.begin(), m_calls.end(), [&](auto t) { return t > window_start && t <= at; }));
    // This round may cost the most; the chain after it what rounds cost lately.
    if (past + k_round_cost + m_chain_cost * static_cast<std::size_t>(k) > k_calls_per_minute) {
      return false;
    }
  }
  return true;
}

SlurmCallSchedule::Clock::time_point SlurmCallSchedule::next_round(Clock::time_point at,
                                                                   bool urgent) const
{
  auto wanted = at;
  if (m_last_round) {
    wanted = std::max(at, *m_last_round + (urgent ? k_first_gap : m_gap));
  }
  if (leaves_room(wanted)) {
    return wanted;
  }
  // The checks change only when a past call leaves one of their windows:
  // at t + 60 s - kG for a call at t.
  std::vector<Clock::time_point> candidates;
  for (const auto t : m_calls) {
    for (int k = 0; k <= k_chain + 1; ++k) {
      const auto candidate = t + k_window - k * k_longest_gap;
      if (candidate > wanted) {
        candidates.push_back(candidate);
      }
    }
  }
  std::sort(candidates.begin(), candidates.end());
  for (const auto candidate : candidates) {
    if (leaves_room(candidate)) {
      return candidate;
    }
  }
  return wanted + k_window; // not reached: once every call left the window, all checks hold
}

void SlurmCallSchedule::note_call(Clock::time_point at)
{
  ++m_round_calls;
  while (!m_calls.empty() && m_calls.front() <= at - 2 * k_window) {
    m_calls.pop_front();
  }
  m_calls.push_back(at);
}

void SlurmCallSchedule::round_done(Clock::time_point at, bool changed)
{
  m_last_round = at;
  m_gap = changed ? k_first_gap : std::min(m_gap * 2, k_longest_gap);
  while (!m_round_costs.empty() && m_round_costs.front().first <= at - k_window) {
    m_round_costs.pop_front();
  }
  m_round_costs.emplace_back(at, std::clamp<std::size_t>(m_round_calls, 1, k_round_cost));
  m_chain_cost = 1;
  for (const auto& [when, cost] : m_round_costs) {
    m_chain_cost = std::max(m_chain_cost, cost);
  }
  m_round_calls = 0;
}

} // namespace bgtask
