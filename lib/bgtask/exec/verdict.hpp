#pragma once

#include <bgtask/core/task_record.hpp>
#include <bgtask/exec/executor.hpp>

namespace bgtask {

// What reconciliation makes of an unfinished record.
enum class Verdict {
  keep,            // owner alive, or nothing new to say
  foreign_host,    // written on another host: left as it is
  cannot_judge,    // owner gone, but its pids are another pid namespace's: left as it is
  host_rebooted,   // owner from an earlier boot: lost
  unsupervised,    // owner gone, command still running: mark it
  supervisor_died, // owner and command gone: lost
  paused_orphan,   // owner gone while the task was paused: nobody can resume it; killed, lost
};

// The rule itself, free of I/O: decides from the record and what its
// executor observed.
Verdict judge_record(const TaskRecord& record, const Liveness& liveness);

// Changes `record` as `verdict` says (a final `lost` state, or the
// unsupervised mark, with an event saying why); keep, foreign_host and
// cannot_judge change nothing.
void apply_verdict(TaskRecord& record, Verdict verdict);

} // namespace bgtask
