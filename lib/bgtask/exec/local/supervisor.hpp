#pragma once

#include <bgtask/exec/local/supervisor_plan.hpp>

namespace bgtask {

class TaskDir;

// Runs in the supervisor process: detaches (new session, stdio on
// /dev/null, no other inherited descriptors), becomes a child subreaper,
// starts the command in its own process group, writes the running record,
// reports the launch result on `plan.report`, then waits for the command,
// enforces the timeout and cancel requests (TERM to the group and every
// descendant, KILL after the grace period) and writes the final record.
// Never returns, and no exception leaves it (one that reaches its top ends
// the task `lost` with the reason). In a build with test seams
// (test_seams.hpp), BGTASK_TEST_STOP_SUPERVISOR makes it stop itself with
// SIGSTOP right after setsid, so a tracer can attach to it alone.
//
// The phases are here; the command's attempts are run by AttemptRunner
// (attempt_runner.hpp), each watched by AttemptWatch (attempt_watch.hpp),
// which stops its tree through SupervisedTree (stop_tree.hpp); the records
// it writes are supervisor_records.hpp's.
[[noreturn]] void run_supervisor(const TaskDir& dir, SupervisorPlan plan);

} // namespace bgtask
