#include <bgtask/exec/local/stop_tree.hpp>
#include <bgtask/exec/local/task_liveness.hpp>
#include <bgtask/exec/local/task_processes.hpp>
#include <bgtask/proc/cgroup.hpp>
#include <bgtask/proc/process_info.hpp>
#include <bgtask/proc/process_tree.hpp>
#include <bgtask/proc/session_members.hpp>
#include <bgtask/proc/stop_loop.hpp>

#include <algorithm>
#include <csignal>
#include <set>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace bgtask {

SupervisedTree::SupervisedTree(std::string id, pid_t leader, const TaskCgroup* cgroup)
  : m_id(std::move(id)),
    m_leader(leader),
    m_cgroup(cgroup)
{
}

std::vector<int> SupervisedTree::processes() const
{
  auto pids = supervised_processes(::getpid(), m_id);
  if (m_cgroup != nullptr) {
    for (const int pid : m_cgroup->processes()) {
      if (std::find(pids.begin(), pids.end(), pid) == pids.end()) {
        pids.push_back(pid);
      }
    }
  }
  return pids;
}

void SupervisedTree::signal(int sig)
{
  signal_processes(m_reaped ? 0 : m_leader, processes(), sig);
}

bool SupervisedTree::settled(Milliseconds patience) const
{
  const auto give_up = std::chrono::steady_clock::now() + patience;
  for (;;) {
    bool all = true;
    if (m_frozen_by_cgroup) {
      all = m_cgroup->frozen_now();
    } else {
      for (const int pid : processes()) {
        const auto stat = read_process_stat(pid);
        if (stat && stat->state != 'T' && stat->state != 't' && stat->state != 'Z' &&
            stat->state != 'X') {
          all = false;
          break;
        }
      }
    }
    if (all || std::chrono::steady_clock::now() >= give_up) {
      return all;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

void SupervisedTree::freeze(bool frozen)
{
  if (frozen) {
    m_frozen_by_cgroup = m_cgroup != nullptr && m_cgroup->set_frozen(true);
    for (int round = 0; round < 2 && !m_frozen_by_cgroup; ++round) {
      const auto pids = processes();
      signal_processes(m_reaped ? 0 : m_leader, pids, SIGSTOP);
      m_stopped.insert(m_stopped.end(), pids.begin(), pids.end());
    }
  } else if (m_frozen_by_cgroup) {
    m_cgroup->set_frozen(false);
  } else {
    auto pids = processes();
    pids.insert(pids.end(), m_stopped.begin(), m_stopped.end());
    std::sort(pids.begin(), pids.end());
    pids.erase(std::unique(pids.begin(), pids.end()), pids.end());
    signal_processes(m_reaped ? 0 : m_leader, pids, SIGCONT);
    m_stopped.clear();
  }
  m_frozen = frozen;
}

bool SupervisedTree::continue_only(const std::vector<int>& pids)
{
  if (!m_frozen || m_frozen_by_cgroup) {
    return false;
  }
  auto all = pids;
  for (const int pid : pids) {
    const auto below = find_descendants(pid);
    all.insert(all.end(), below.begin(), below.end());
  }
  signal_processes(0, all, SIGCONT);
  return true;
}

void SupervisedTree::begin_stop(Stopping why, Milliseconds grace)
{
  m_stopping = why;
  signal(SIGTERM);
  if (m_frozen) {
    freeze(false);
  }
  m_kill_at = Clock::now() + grace;
}

void SupervisedTree::hasten(Milliseconds grace)
{
  const auto at = Clock::now() + grace;
  if (m_kill_at && at < *m_kill_at) {
    m_kill_at = at;
  }
}

void SupervisedTree::kill_if_due(Clock::time_point now)
{
  if (m_kill_at && now >= *m_kill_at) {
    signal(SIGKILL);
    m_kill_at.reset();
    m_killed = true;
  }
}

void SupervisedTree::kill_remaining_descendants()
{
  stop_processes(
    [&](int sig) {
      const auto descendants = supervised_processes(::getpid(), m_id);
      signal_processes(0, descendants, sig);
      return static_cast<int>(descendants.size());
    },
    {}, std::nullopt, ReapChildren::yes);
}

int signal_task_tree(const TaskRecord& record, int sig)
{
  const int supervisor = record.owner->pid;
  std::vector<std::pair<int, UniqueFd>> opened;
  for (const int pid : supervised_processes(supervisor, record.id)) {
    opened.emplace_back(pid, open_pidfd(pid));
  }
  const auto again = supervised_processes(supervisor, record.id);
  const std::set<int> still(again.begin(), again.end());
  int signalled = 0;
  for (const auto& [pid, pidfd] : opened) {
    if (pidfd && still.count(pid) != 0 && send_signal(pidfd, sig) == 0) {
      ++signalled;
    }
  }
  return signalled +
         signal_session_members(task_session(record), task_session_processes(record), sig);
}

int signal_orphaned_processes(const TaskRecord& record, int sig)
{
  if (!record.child) {
    return 0;
  }
  if (!record.owner) {
    // A record without an owner names only its command: its leader, by pidfd.
    const UniqueFd pidfd = open_pidfd(record.child->pid);
    return pidfd && leader_alive(record) && send_signal(pidfd, sig) == 0 ? 1 : 0;
  }
  if (!sees_pid_namespace(record.owner->pid_ns)) {
    return 0;
  }
  return signal_session_members(task_session(record), task_session_processes(record), sig);
}

void stop_orphaned(const TaskRecord& record, Milliseconds grace)
{
  // Its cgroup, if it had one, holds what left the session; frozen there
  // (a paused task), a process never acts on a signal until thawed.
  TaskCgroup cgroup = TaskCgroup::recorded(record.cgroup.value_or(""), record.id);
  const auto signal = [&](int sig) {
    int signalled = signal_orphaned_processes(record, sig);
    for (const int pid : cgroup.processes()) {
      signalled += pid > 1 && ::kill(pid, sig) == 0 ? 1 : 0;
    }
    if (sig == SIGTERM) {
      // A paused task: stopped, a process acts on TERM only once continued.
      cgroup.set_frozen(false);
      signal_orphaned_processes(record, SIGCONT);
    }
    return signalled;
  };
  stop_processes(
    signal, [&] { return command_alive(record) || !cgroup.processes().empty(); }, grace,
    ReapChildren::no);
  if (!cgroup.empty()) {
    cgroup.remove();
  }
}

} // namespace bgtask
