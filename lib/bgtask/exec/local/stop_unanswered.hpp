#pragma once

#include <bgtask/core/task_record.hpp>
#include <bgtask/exec/executor.hpp>

#include <optional>
#include <string>

namespace bgtask {

class TaskDir;

// What `cancel` does about a supervised task whose record is still not
// final after the grace period and a margin (CancelAttempt::overdue, then
// ::last). The supervisor still holds the task (its lock), so only it may
// write the final record; when it runs again it finds the TERM waiting and
// records `cancelled`. Meanwhile cancel itself stops the command, verified
// as the task's (task_processes.hpp: the live supervisor's descendants,
// other tasks' supervisors excepted, and its session's members): TERM, then
// KILL after `grace`; a paused task is thawed and continued after the TERM.
//
// Acts on an overdue attempt only if the supervisor is stopped (SIGSTOP, a
// tracer), on the last one whatever it does. From another pid namespace
// (owner.pid_ns) no process can be verified: the last attempt says so and
// nothing is signalled. nullopt: nothing to say (go on waiting, or the
// supervisor is gone and reconciliation takes over); else the message.
std::optional<std::string> stop_unanswered(const TaskDir& dir, const TaskRecord& record,
                                           Milliseconds grace, CancelAttempt attempt);

} // namespace bgtask
