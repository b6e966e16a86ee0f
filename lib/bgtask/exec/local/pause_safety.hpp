#pragma once

#include <vector>

namespace bgtask {

class TaskDir;

// Those of `pids` that hold a lock of the task directory `dir` that other
// bgtask processes wait for: the update lock of a record's `ID.lock`, or an
// exclusive flock(2) of a `*.lock` file of `dir` (`start.lock`) or of a
// file of its `.cache` (the newest-ID hint). A command's hold on its
// `ID.output` and a waiter's shared reader lock keep no one waiting. A `bgtask progress` or `start`
// the task runs holds one for a moment; stopped then, it would hold it until resumed.
std::vector<int> directory_lock_holders(const std::vector<int>& pids, const TaskDir& dir);

} // namespace bgtask
