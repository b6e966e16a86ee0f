#pragma once

#include <bgtask/core/task_record.hpp>
#include <bgtask/util/duration.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace bgtask {

class TaskDir;

struct CancelResult
{
  std::vector<TaskRecord> records; // the final records, in the order of the IDs
  std::vector<bool> was_final;     // per ID: it had finished before the cancel
  // Tasks whose record could not be made final (their supervisors did not
  // answer): what is true of each, for the user. Their records in
  // `records` are not final then.
  std::vector<std::string> unanswered;
};

// Cancels the unfinished tasks among `ids` (resolved IDs) through their
// executors and returns once every record is final: TERM, then KILL after
// `grace`, or without it each task's own grace (`start --grace`, grace_s of
// its record). It never waits for ever: a task still unfinished after the
// grace and a margin (a stopped supervisor, one in another pid namespace)
// is stopped another way where its executor can, and `unanswered` says
// what became of each such task. Refuses (Error(failure)) before
// signalling anything if one runs on another host. Caught interrupts do
// not end it.
// `hurry`, if given, is asked about every 100 ms: once it says yes, the
// tasks still stopping are cancelled again with no grace (KILL now).
// `read`: records of some of `ids`, in their order, not read again.
CancelResult cancel_tasks(const TaskDir& dir, const std::vector<std::string>& ids,
                          std::optional<Milliseconds> grace,
                          const std::function<bool()>& hurry = nullptr,
                          std::vector<TaskRecord> read = {});

} // namespace bgtask
