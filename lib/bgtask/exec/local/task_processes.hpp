#pragma once

#include <bgtask/core/task_record.hpp>
#include <bgtask/proc/process_info.hpp>
#include <bgtask/proc/session_members.hpp>

#include <string_view>
#include <vector>

namespace bgtask {

// Which processes are a task's, as far as bgtask can verify it.
//
// While its supervisor lives: the supervisor's descendants (it is their
// subreaper, so daemonised and `setsid` children come back below it),
// except the supervisors of other tasks started from the task and what
// they run. Once the supervisor is gone: the members of the session it
// created, owned by the task's user. A process that carries the task's
// BGTASK_ID, or leads a group with the recorded pgid, proves nothing.

// The identity of the owner of `record` (this process), as the supervisor
// and the queue gate record it: pid, a fresh instance token, start time,
// boot id, host and pid namespace.
OwnerIdentity this_supervisor_identity();

// The session the task's supervisor created, owned by this user (geteuid).
// Requires record.owner.
SessionIdentity task_session(const TaskRecord& record);

// The verified members of the task's session (the supervisor excluded);
// none for a record without an owner.
std::vector<int> task_session_processes(const TaskRecord& record);

// True if `pid` is the live supervisor of a task other than `own_id`: it
// leads its own session and holds open the lock file of a task whose
// unfinished record names it (pid and start time) as its owner.
bool is_other_task_supervisor(int pid, const ProcessStat& stat, std::string_view own_id);

// The descendants of `supervisor` that belong to task `id`: all of them but
// other tasks' supervisors and everything below those.
std::vector<int> supervised_processes(int supervisor, std::string_view id);

} // namespace bgtask
