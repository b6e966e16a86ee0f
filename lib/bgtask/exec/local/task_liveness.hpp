#pragma once

#include <bgtask/core/task_record.hpp>
#include <bgtask/exec/executor.hpp>

namespace bgtask {

class TaskLock;

// The recorded command's leader still runs: same pid and start time and, once
// a supervisor ran it, still in that supervisor's session.
bool leader_alive(const TaskRecord& record);

// The command is alive if its leader is the recorded process, or if the
// leader is gone but processes of its group or carrying its BGTASK_ID remain.
bool command_alive(const TaskRecord& record);

// Judges a running local record. `lock` is the task's lock; if the owner is
// found gone, the ownership lock is left taken by `lock`, so the caller may
// rewrite the record alone (unless `lock` is read-only: then nothing is
// taken, and nothing may be written).
Liveness judge_liveness(const TaskRecord& record, TaskLock* lock);

// Sends `sig` to the task's supervisor if it is provably the live owner of
// the task: its pidfd, start time and session match the record and it holds
// `lock`. False (nothing sent) otherwise.
bool signal_supervisor(const TaskRecord& record, TaskLock& lock, int sig);

} // namespace bgtask
