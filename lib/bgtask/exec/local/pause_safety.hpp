#pragma once

#include <vector>

namespace bgtask {

class TaskDir;

// True if one of `pids` holds a lock of the task directory `dir` that other
// bgtask processes wait for: the update lock of a record's `ID.lock`, or an
// exclusive flock(2) of a `*.lock` file of `dir` (`start.lock`) or of a
// file of its `.cache` (the newest-ID hint). A command's hold on its
// `ID.output` and a waiter's shared reader lock keep no one waiting. A `bgtask progress` or `start`
// the task runs holds one for a moment; stopped then, it would hold it until resumed.
bool holds_directory_lock(const std::vector<int>& pids, const TaskDir& dir);

} // namespace bgtask
