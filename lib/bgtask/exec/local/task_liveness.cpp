#include <bgtask/exec/local/task_liveness.hpp>
#include <bgtask/proc/process_info.hpp>
#include <bgtask/proc/process_tree.hpp>
#include <bgtask/store/task_lock.hpp>
#include <bgtask/util/utf8.hpp>

namespace bgtask {

bool leader_alive(const TaskRecord& record)
{
  const auto& child = *record.child;
  return record.owner ? is_same_process(child.pid, child.start_time, record.owner->pid)
                      : is_same_process(child.pid, child.start_time);
}

bool command_alive(const TaskRecord& record)
{
  if (!record.child) {
    return false;
  }
  const auto& child = *record.child;
  if (leader_alive(record)) {
    return true;
  }
  const auto leader = read_process_stat(child.pgid);
  if (!leader && process_group_exists(child.pgid)) {
    return true;
  }
  return !find_task_processes(record.id).empty();
}

Liveness judge_liveness(const TaskRecord& record, TaskLock* lock)
{
  Liveness liveness;
  if (!record.owner) {
    liveness.command_alive = command_alive(record);
    return liveness;
  }
  const auto& owner = *record.owner;
  // Records hold these as to_valid_utf8 made them; compare them the same way.
  liveness.same_host = is_this_machine(owner.host, owner.boot_id);
  if (!liveness.same_host) {
    return liveness;
  }
  liveness.same_boot = owner.boot_id == to_valid_utf8(current_boot_id());
  if (!liveness.same_boot) {
    return liveness;
  }
  if (lock != nullptr) {
    liveness.supervisor_alive =
      lock->read_only() ? lock->ownership_held() : !lock->try_take_ownership();
  } else {
    liveness.supervisor_alive = is_same_process(owner.pid, owner.start_time, owner.pid);
  }
  if (!liveness.supervisor_alive) {
    liveness.command_alive = command_alive(record);
  }
  return liveness;
}

bool signal_supervisor(const TaskRecord& record, TaskLock& lock, int sig)
{
  if (!record.owner) {
    return false;
  }
  const UniqueFd pidfd = open_pidfd(record.owner->pid);
  if (!pidfd || !is_same_process(record.owner->pid, record.owner->start_time, record.owner->pid) ||
      lock.try_take_ownership()) {
    return false;
  }
  return send_signal(pidfd, sig) == 0;
}

} // namespace bgtask
