#pragma once

#include <string_view>
#include <vector>

namespace bgtask {

// The pids of all live descendants of `ancestor` (not `ancestor` itself),
// found by walking parent links in /proc.
std::vector<int> find_descendants(int ancestor);

// The pids of live processes of this user whose environment holds
// `BGTASK_ID=<id>`: the processes of one task, wherever they were
// re-parented (unless a process cleared its environment).
std::vector<int> find_task_processes(std::string_view id);

// Sends `signal` to process group `pgid` (when > 1) and to each pid (when
// > 1). Never signals pid 0, 1 or -1.
void signal_processes(int pgid, const std::vector<int>& pids, int signal);

// True if any process is left in group `pgid`.
bool process_group_exists(int pgid);

} // namespace bgtask
