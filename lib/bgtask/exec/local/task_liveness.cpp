#include <bgtask/exec/local/task_liveness.hpp>
#include <bgtask/exec/local/task_processes.hpp>
#include <bgtask/proc/process_info.hpp>
#include <bgtask/store/task_lock.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/resource_shortage.hpp>

#include <cerrno>
#include <unistd.h>

namespace bgtask {

bool leader_alive(const TaskRecord& record)
{
  const auto& child = *record.child;
  if (!record.owner) {
    return is_same_process(child.pid, child.start_time) && process_owned_by(child.pid, ::geteuid());
  }
  return is_same_process(child.pid, child.start_time, record.owner->pid) &&
         is_session_member(child.pid, task_session(record));
}

bool command_alive(const TaskRecord& record)
{
  if (!record.child) {
    return false;
  }
  return leader_alive(record) || !task_session_processes(record).empty();
}

Liveness judge_liveness(const TaskRecord& record, TaskLock* lock)
{
  Liveness liveness;
  if (!record.owner) {
    liveness.command_alive = command_alive(record);
    return liveness;
  }
  const auto& owner = *record.owner;
  liveness.same_host = is_this_machine(owner.host, owner.boot_id);
  if (!liveness.same_host) {
    return liveness;
  }
  liveness.same_boot = is_this_boot(owner.boot_id);
  if (!liveness.same_boot) {
    return liveness;
  }
  liveness.pids_visible = sees_pid_namespace(owner.pid_ns);
  if (lock != nullptr) {
    liveness.supervisor_alive =
      lock->read_only() ? lock->ownership_held() : !lock->try_take_ownership();
  } else if (liveness.pids_visible) {
    liveness.supervisor_alive = is_same_process(owner.pid, owner.start_time, owner.pid);
  }
  if (!liveness.supervisor_alive && liveness.pids_visible) {
    liveness.command_alive = command_alive(record);
  }
  return liveness;
}

bool signal_supervisor(const TaskRecord& record, TaskLock& lock, int sig)
{
  if (!record.owner || !sees_pid_namespace(record.owner->pid_ns)) {
    return false;
  }
  errno = 0;
  const UniqueFd pidfd = open_pidfd(record.owner->pid);
  const bool verified =
    pidfd && is_same_process(record.owner->pid, record.owner->start_time, record.owner->pid);
  if (!verified && is_resource_shortage(errno)) {
    throw_system("cannot look at the supervisor of task " + record.id, errno);
  }
  if (!verified || lock.try_take_ownership()) {
    return false;
  }
  return sig == 0 || send_signal(pidfd, sig) == 0;
}

} // namespace bgtask
