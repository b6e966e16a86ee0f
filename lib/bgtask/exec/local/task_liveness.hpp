#pragma once

#include <bgtask/core/task_record.hpp>
#include <bgtask/exec/executor.hpp>

namespace bgtask {

class TaskLock;

// The recorded command's leader still runs: same pid and start time, owned
// by this user and, once a supervisor ran it, still in that supervisor's
// session (task_processes.hpp).
bool leader_alive(const TaskRecord& record);

// The command is alive if its leader is the recorded process, or if the
// leader is gone but verified members of the task's session remain (a
// group with the recorded pgid, or a process carrying its BGTASK_ID, is no
// proof).
bool command_alive(const TaskRecord& record);

// Judges a running local record. `lock` is the task's lock; if the owner is
// found gone, the ownership lock is left taken by `lock`, so the caller may
// rewrite the record alone (unless `lock` is read-only: then nothing is
// taken, and nothing may be written). From another pid namespace than the
// supervisor's (owner.pid_ns) no pid is looked at: pids_visible is false.
Liveness judge_liveness(const TaskRecord& record, TaskLock* lock);

// Sends `sig` to the task's supervisor if it is provably the live owner of
// the task: its pidfd, start time and session match the record and it holds
// `lock`. False (nothing sent) otherwise. `sig` 0 only checks. Throws
// Error(failure) if it cannot be told (too many open files).
bool signal_supervisor(const TaskRecord& record, TaskLock& lock, int sig);

} // namespace bgtask
