#pragma once

#include <bgtask/core/task_record.hpp>
#include <bgtask/util/timestamp.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace bgtask {

// What `cleanup` was asked to remove.
struct CleanupCriteria
{
  TimePoint cutoff;                       // only tasks that finished at or before this
  std::vector<std::string> states;        // only these final states (empty: any)
  std::size_t keep = 0;                   // spare the `keep` most recently finished
  std::optional<std::uint64_t> max_bytes; // stop once the finished tasks' files fit in this
};

// Cleanup's rule, pure: which of `finished` (final records, in any order) to
// remove, as indices into `finished`, oldest first (finished_at, else
// created_at). `bytes[i]` is the size of task i's files; it is read only with
// `max_bytes` (and may then be empty otherwise). With `max_bytes`, tasks go
// oldest first until the files of all finished tasks, the kept ones
// included, take at most that much; the other criteria still spare a task.
std::vector<std::size_t> select_for_removal(std::span<const TaskRecord> finished,
                                            std::span<const std::uint64_t> bytes,
                                            const CleanupCriteria& criteria);

} // namespace bgtask
