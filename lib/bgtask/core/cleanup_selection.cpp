#include <bgtask/core/cleanup_selection.hpp>
#include <bgtask/core/task_state.hpp>

#include <algorithm>
#include <numeric>

namespace bgtask {

namespace {

TimePoint finished_time(const TaskRecord& record)
{
  return record.finished_at.value_or(record.created_at);
}

bool state_wanted(const TaskRecord& record, const std::vector<std::string>& states)
{
  return states.empty() || std::find(states.begin(), states.end(),
                                     std::string(to_string(record.state))) != states.end();
}

} // namespace

std::vector<std::size_t> select_for_removal(std::span<const TaskRecord> finished,
                                            std::span<const std::uint64_t> bytes,
                                            const CleanupCriteria& criteria)
{
  std::vector<std::size_t> order(finished.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return finished_time(finished[a]) < finished_time(finished[b]);
  });
  std::uint64_t total = 0;
  if (criteria.max_bytes) {
    for (std::size_t i = 0; i < finished.size(); ++i) {
      total += bytes[i];
    }
  }
  // The newest `keep` tasks are spared, whatever else is asked.
  order.resize(order.size() > criteria.keep ? order.size() - criteria.keep : 0);
  std::vector<std::size_t> chosen;
  for (const std::size_t i : order) {
    if (criteria.max_bytes && total <= *criteria.max_bytes) {
      break;
    }
    if (finished_time(finished[i]) > criteria.cutoff ||
        !state_wanted(finished[i], criteria.states)) {
      continue;
    }
    chosen.push_back(i);
    if (criteria.max_bytes) {
      total -= std::min(total, bytes[i]);
    }
  }
  return chosen;
}

} // namespace bgtask
