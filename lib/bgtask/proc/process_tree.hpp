#pragma once

#include <bgtask/proc/process_info.hpp>

#include <functional>
#include <vector>

namespace bgtask {

// The pids of all live descendants of `ancestor` (not `ancestor` itself),
// found by walking parent links in /proc. A process whose parent exits
// during the scan is still found (under its new parent, the nearest
// subreaper).
std::vector<int> find_descendants(int ancestor);

// Says whether a descendant and everything below it is to be left out.
using PruneDescendant = std::function<bool(int pid, const ProcessStat& stat)>;

// As above, without each descendant for which `prune` is true and without
// everything below it.
std::vector<int> find_descendants(int ancestor, const PruneDescendant& prune);

// Sends `signal` to process group `pgid` (when > 1) and to each pid (when
// > 1). Never signals pid 0, 1 or -1.
void signal_processes(int pgid, const std::vector<int>& pids, int signal);

} // namespace bgtask
