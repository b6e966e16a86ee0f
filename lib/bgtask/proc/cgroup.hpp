#pragma once

#include <bgtask/util/result.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bgtask {

// Limits on a task's whole process tree (start --memory-max, --pids-max,
// --cpu-max). rlimits would bound each process alone; a cgroup bounds the
// tree, including what forks, daemonises or calls setsid.
struct CgroupLimits
{
  std::optional<std::uint64_t> memory_max; // bytes
  std::optional<std::uint64_t> pids_max;   // processes and threads
  std::optional<double> cpu_max;           // CPUs

  bool any() const { return memory_max || pids_max || cpu_max; }
};

// Why `limits` cannot be enforced on this machine (a controller that no
// mounted hierarchy offers, or one this user cannot write), or empty if
// they can. Looks at cgroup v2 first, then the v1 controller hierarchies.
// Throws Error(failure) if the mounts cannot be read (too many open files).
std::string cgroup_unavailable_reason(const CgroupLimits& limits);

// The cgroup of one task, `bgtask/ID` under each hierarchy it needs (one
// for cgroup v2; memory, pids, cpu and freezer for v1), created and
// removed by the task's supervisor. A process added before it execs keeps
// its whole tree inside.
class TaskCgroup
{
public:
  // Creates the groups and applies `limits` (v1: also a freezer group where
  // one can be made, for pause); on failure removes what it made and says why.
  static Result<TaskCgroup> create(std::string_view id, const CgroupLimits& limits);

  // Moves process `pid` into every group of the task; false and `error` on failure.
  bool add_process(int pid, std::string& error) const;

  // The processes in the task's groups now.
  std::vector<int> processes() const;

  // How many processes the memory limit's OOM killer has killed so far.
  std::uint64_t oom_kills() const;

  // The most memory the tree used, in bytes, when the kernel reports it.
  std::optional<std::uint64_t> memory_peak() const;

  // How often a fork failed at the pids limit.
  std::uint64_t pids_limit_hits() const;

  // Freezes or thaws the whole tree; false if the task has no freezer
  // group (the caller then signals each process).
  bool set_frozen(bool frozen) const;

  // True once every process of the groups is frozen (v2: cgroup.events
  // says `frozen 1`; v1: freezer.state says FROZEN, not FREEZING).
  bool frozen_now() const;

  // The groups' directories, `;`-separated, as the record keeps them.
  std::string paths() const;

  // KILLs what is left in the groups and removes them (best effort).
  void remove();

  // Removes the groups named in `paths` (as paths() wrote them) that are
  // empty; for the record of a task whose supervisor died.
  static void remove_leftover(std::string_view paths);

  // The groups of task `id` that `paths` (as paths() wrote them) names and
  // that still exist, for a task whose supervisor died: only directories
  // that create() makes (`.../bgtask/ID`). Empty if none is left.
  static TaskCgroup recorded(std::string_view paths, std::string_view id);

  // True if it names no group.
  bool empty() const { return paths().empty(); }

private:
  bool m_v2 = false;
  std::string m_unified; // v2: the one group
  std::string m_memory;  // v1: one group per controller; empty if not used
  std::string m_pids;
  std::string m_cpu;
  std::string m_freezer;
};

} // namespace bgtask
