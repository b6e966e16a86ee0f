#pragma once

#include <bgtask/core/task_record.hpp>
#include <bgtask/util/duration.hpp>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace bgtask {

class TaskCgroup;

// How a local task's processes are stopped: TERM, then KILL once the grace
// period has passed. Three parties stop a task, each with what it can
// verify (task_processes.hpp), the blocking ones through the one loop
// (proc/stop_loop.hpp):
// - its supervisor (on cancel, timeout or removal): SupervisedTree, without
//   blocking, then stop_processes for what is left;
// - `cancel`, past a supervisor that does not answer (stop_unanswered.hpp):
//   signal_task_tree through stop_processes;
// - `cancel` or reconciliation of a task whose supervisor is gone:
//   stop_orphaned.

// Why a supervisor stops its command's tree.
enum class Stopping { no, cancel, timeout };

// The tree of the command a supervisor runs, as the supervisor stops,
// pauses and continues it without blocking: begin_stop sends TERM and sets
// when KILL is due, which the supervisor's event loop sends with
// kill_if_due. One per attempt of the command.
class SupervisedTree
{
public:
  using Clock = std::chrono::steady_clock;

  // `leader`: the command's process (and group) leader, a child of this
  // process; `cgroup`: the task's cgroup, or null.
  SupervisedTree(std::string id, pid_t leader, const TaskCgroup* cgroup);

  // The leader was reaped: its pid (and group id) may be another's now.
  void leader_reaped() { m_reaped = true; }

  // Sends `sig` to the command's group (until its leader is reaped), every
  // descendant of this process but other tasks' supervisors and their trees
  // (supervised_processes) and, with a cgroup, every process in it.
  void signal(int sig);

  // The processes signal() reaches but the group: the descendants, and the
  // cgroup's members.
  std::vector<int> processes() const;

  // Stops (`frozen`) or continues the tree: through the cgroup's freezer
  // where it has one, else with SIGSTOP (twice: a process forking during the
  // first round has a child that escaped it) or SIGCONT, which also reaches
  // every process stopped since, though it may have left the tree meanwhile
  // (a new task's supervisor, once its record names it).
  void freeze(bool frozen);
  bool frozen() const { return m_frozen; }

  // While the tree is stopped with SIGSTOP, continues only `pids` (processes
  // of the tree) and their descendants; freeze(true) stops them again. False,
  // and nothing sent, when the tree is frozen by its cgroup, whose members
  // thaw together.
  bool continue_only(const std::vector<int>& pids);

  // After freeze(true): true once every process is stopped (or gone), so
  // that what it holds now it holds until continued. Looks for up to
  // `patience`.
  bool settled(Milliseconds patience) const;

  // Sends TERM (and continues a frozen tree: a stopped process acts on TERM
  // only once continued); KILL is due after `grace`. `why` is kept.
  void begin_stop(Stopping why, Milliseconds grace);

  // While stopping: KILL after `grace` from now if that is sooner than due
  // (a second cancel asking for a shorter grace).
  void hasten(Milliseconds grace);
  Stopping stopping() const { return m_stopping; }

  // When KILL is due; nullopt when it is not (no stop, or KILL sent).
  std::optional<Clock::time_point> kill_at() const { return m_kill_at; }

  // Sends KILL to the tree if it is due at `now`.
  void kill_if_due(Clock::time_point now);

  // True once KILL was sent.
  bool killed() const { return m_killed; }

  // After the leader is reaped: KILLs descendants until none is left, since
  // a process forking between one scan and its kill has a child that escapes
  // that round (orphans come back to this process, the subreaper). Not the
  // group: with the leader reaped, its pid may already be another's.
  void kill_remaining_descendants();

private:
  std::string m_id;
  pid_t m_leader;
  const TaskCgroup* m_cgroup;
  bool m_reaped = false;
  bool m_frozen = false;
  bool m_frozen_by_cgroup = false;
  std::vector<int> m_stopped; // every pid sent SIGSTOP since the tree was last continued
  bool m_killed = false;
  Stopping m_stopping = Stopping::no;
  std::optional<Clock::time_point> m_kill_at;
};

// Sends `sig` to the processes of a task whose supervisor (record.owner,
// which must be set) lives but does not answer: its verified descendants
// (supervised_processes) and its session's members. Descendants are
// verified twice: their pidfds are opened from one scan and used only for
// pids a second scan still finds, so a pid reused in between is never
// signalled. Returns how many got it.
int signal_task_tree(const TaskRecord& record, int sig);

// Sends `sig` to what is left of a task whose supervisor is gone: the
// verified members of its session (or, for a record without an owner, its
// leader). Nothing from another pid namespace. Returns how many got it.
int signal_orphaned_processes(const TaskRecord& record, int sig);

// Stops what is left of a task whose supervisor is gone: TERM to its
// processes and to those in its recorded cgroup, which is thawed (a paused
// task's processes are continued too), then KILL after `grace`
// (stop_processes), and removes the cgroup. Returns once none is left.
void stop_orphaned(const TaskRecord& record, Milliseconds grace);

} // namespace bgtask
