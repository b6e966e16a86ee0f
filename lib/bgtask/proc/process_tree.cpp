#include <bgtask/proc/process_info.hpp>
#include <bgtask/proc/process_tree.hpp>
#include <bgtask/util/dir_stream.hpp>

#include <csignal>
#include <cstdlib>
#include <dirent.h>
#include <unistd.h>
#include <unordered_map>

namespace bgtask {

namespace {

// Calls `visit(pid)` for every numeric entry of /proc.
template <typename Visit> void for_each_pid(Visit visit)
{
  DirStream proc = DirStream::open("/proc");
  if (!proc) {
    return;
  }
  while (const dirent* entry = proc.next()) {
    char* end = nullptr;
    const long pid = std::strtol(entry->d_name, &end, 10);
    if (pid > 0 && *end == '\0') {
      visit(static_cast<int>(pid));
    }
  }
}

} // namespace

std::vector<int> find_descendants(int ancestor)
{
  return find_descendants(ancestor, PruneDescendant());
}

std::vector<int> find_descendants(int ancestor, const PruneDescendant& prune)
{
  std::unordered_map<int, ProcessStat> stat_of;
  for_each_pid([&](int pid) {
    if (auto stat = read_process_stat(pid); stat && stat->state != 'Z') {
      stat_of.emplace(pid, *stat);
    }
  });
  // The scan is not atomic. A process read before its parent exits names a
  // parent the scan then finds gone or a zombie, although it has a new one
  // by then (the nearest subreaper): read it again. Once pids wrap around,
  // a child's pid is below its parent's and it is read first.
  for (auto& [pid, stat] : stat_of) {
    if (stat.ppid > 0 && stat.ppid != ancestor && stat_of.count(stat.ppid) == 0) {
      if (auto again = read_process_stat(pid); again && again->state != 'Z') {
        stat = *again;
      }
    }
  }
  // 1: below `ancestor`; -1: pruned, or below a pruned one; 0: neither;
  // 2: `ancestor` itself.
  std::unordered_map<int, int> verdict;
  std::function<int(int, int)> classify = [&](int pid, int depth) -> int {
    if (pid == ancestor) {
      return 2;
    }
    if (const auto known = verdict.find(pid); known != verdict.end()) {
      return known->second;
    }
    const auto it = stat_of.find(pid);
    if (it == stat_of.end() || depth > 4096) {
      return 0;
    }
    verdict[pid] = 0; // a cycle of stale parent links ends here
    const int parent = it->second.ppid > 0 ? classify(it->second.ppid, depth + 1) : 0;
    int result = parent == -1 ? -1 : 0;
    if (parent >= 1) {
      result = prune && prune(pid, it->second) ? -1 : 1;
    }
    verdict[pid] = result;
    return result;
  };
  std::vector<int> descendants;
  for (const auto& entry : stat_of) {
    if (entry.first != ancestor && classify(entry.first, 0) == 1) {
      descendants.push_back(entry.first);
    }
  }
  return descendants;
}

void signal_processes(int pgid, const std::vector<int>& pids, int signal)
{
  if (pgid > 1) {
    ::kill(-pgid, signal);
  }
  for (const int pid : pids) {
    if (pid > 1) {
      ::kill(pid, signal);
    }
  }
}

} // namespace bgtask
