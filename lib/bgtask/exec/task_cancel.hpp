#pragma once

#include <bgtask/core/task_record.hpp>
#include <bgtask/util/duration.hpp>

#include <optional>
#include <string>
#include <vector>

namespace bgtask {

class TaskDir;

struct CancelResult
{
  std::vector<TaskRecord> records; // the final records, in the order of the IDs
  std::vector<bool> was_final;     // per ID: it had finished before the cancel
};

// Cancels the unfinished tasks among `ids` (resolved IDs) through their
// executors and returns once every record is final: TERM, then KILL after
// `grace`, or without it each task's own grace (`start --grace`, grace_s of
// its record). Refuses (Error(failure)) before signalling anything if one
// runs on another host. Caught interrupts do not end it.
CancelResult cancel_tasks(const TaskDir& dir, const std::vector<std::string>& ids,
                          std::optional<Milliseconds> grace);

} // namespace bgtask
