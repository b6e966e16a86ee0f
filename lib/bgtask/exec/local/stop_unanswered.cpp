#include <bgtask/exec/local/stop_tree.hpp>
#include <bgtask/exec/local/stop_unanswered.hpp>
#include <bgtask/proc/cgroup.hpp>
#include <bgtask/proc/process_info.hpp>
#include <bgtask/proc/stop_loop.hpp>
#include <bgtask/store/task_lock.hpp>

#include <csignal>

namespace bgtask {

std::optional<std::string> stop_unanswered(const TaskDir& dir, const TaskRecord& record,
                                           Milliseconds grace, CancelAttempt attempt)
{
  if (!record.owner || record.unsupervised) {
    return std::nullopt;
  }
  const auto& owner = *record.owner;
  const std::string waited = format_duration(grace) + " of grace and " +
                             (attempt == CancelAttempt::last ? "10s" : "2s") + " more";
  if (!sees_pid_namespace(owner.pid_ns)) {
    if (attempt != CancelAttempt::last) {
      return std::nullopt;
    }
    return "task " + record.id + " was not cancelled: its supervisor (pid " +
           std::to_string(owner.pid) + " of another pid namespace) did not act on the request in " +
           waited +
           ", and its processes cannot be seen from this pid namespace; the request "
           "stays in its record (cancel it from the supervisor's pid namespace)";
  }
  auto lock = TaskLock::open_existing(dir, record.id);
  const UniqueFd pidfd = open_pidfd(owner.pid);
  const auto stat = read_process_stat(owner.pid);
  if (!lock || !pidfd || !stat || !is_same_process(owner.pid, owner.start_time, owner.pid) ||
      lock->try_take_ownership()) {
    return std::nullopt; // gone: reconciliation sees to the record
  }
  const bool stopped = stat->state == 'T' || stat->state == 't';
  if (!stopped && attempt != CancelAttempt::last) {
    return std::nullopt;
  }
  // A paused task's processes act on no signal while its cgroup's freezer
  // holds them, and on none but KILL while stopped: thawed and continued
  // after the TERM, as the supervisor would.
  const TaskCgroup cgroup = TaskCgroup::recorded(record.cgroup.value_or(""), record.id);
  const auto signal = [&](int sig) {
    const int count = signal_task_tree(record, sig);
    if (sig == SIGTERM) {
      cgroup.set_frozen(false);
      signal_task_tree(record, SIGCONT);
    }
    return count;
  };
  const int signalled = stop_processes(
    signal, [&] { return signal_task_tree(record, 0) > 0; }, grace, ReapChildren::no);
  const bool left = signal_task_tree(record, 0) > 0;
  return "task " + record.id + " is not recorded cancelled yet: its supervisor (pid " +
         std::to_string(owner.pid) + ") " +
         (stopped ? "is stopped" : "did not act on the request in " + waited) + "; " +
         (signalled == 0 ? "no process of its command was left to stop"
          : left         ? "cancel could not stop every process of its command"
                         : "cancel stopped its command itself") +
         ", and the record stays running until the supervisor runs again";
}

} // namespace bgtask
