#pragma once

#include <bgtask/core/task_record.hpp>
#include <bgtask/exec/executor.hpp>
#include <bgtask/exec/local/admitted_task.hpp>

#include <optional>
#include <string>
#include <vector>

namespace bgtask {

class TaskDir;
struct SupervisorPlan;

// The hand-off: parked tasks (queue_admission.hpp) start when a slot frees
// or their --after tasks settle. Whoever frees a slot or settles a task (a
// supervisor before it exits, `cancel`) hands off, and every invocation
// does the same when it opens the directory, so a hand-off lost with a
// process that died is made by the next one.

// Who hands off: a supervisor (the test seam BGTASK_TEST_HANDOFF_KILL acts
// in supervisors alone), which admits into a queue only as many tasks as
// it freed slots of it and moved tasks into its line; or any other bgtask
// process, which fills every free slot.
enum class HandOffBy { supervisor, invocation };

// Admits every parked task that may start now, oldest first: ends those
// whose --after tasks did not succeed (failed, as their supervisor did
// before), moves those whose --after tasks succeeded into their queue's
// line, and for each queue in turn, holding `queue-Q.lock`, gives the free
// slots to the oldest tasks of its line (a free slot: its lock free and the
// task it names no longer running) and starts their supervisors
// with `launch` (launch_parked_task). A task is claimed by its ownership lock, so two
// hand-offs never start it twice. Costs one failed open when nothing is
// parked. Never throws: what it cannot do now, the next hand-off does.
// `freed_queue`: the queue of the slot a supervisor has just released.
void admit_parked_tasks(const TaskDir& dir, Reconciler reconcile, ParkedLauncher launch,
                        HandOffBy by, const std::optional<std::string>& freed_queue = {});

// Whether `queue` has a slot that a hand-off could give now (true also
// when that cannot be told); false while another process holds the
// queue's lock (it is handing off).
bool queue_has_free_slot(const TaskDir& dir, const std::string& queue, Reconciler reconcile);

// A supervisor's hand-off: releases its slot, then admit_parked_tasks
// with the plan's reconciler and launcher, filling that slot at most.
void hand_off(const TaskDir& dir, SupervisorPlan& plan);

// Ends an admitted task whose supervisor cannot be set up: `failed` with
// `reason`, its file removed from `.parked`, its --on-exit hook; then frees
// its slot and hands off as its supervisor would have. Never throws.
void fail_admitted_task(const TaskDir& dir, AdmittedTask task, const std::string& reason,
                        Reconciler reconcile, ParkedLauncher launch);

// What cancel_parked_tasks did.
struct ParkedCancel
{
  std::vector<TaskRecord> ended;    // the final records written
  std::vector<std::string> claimed; // IDs a hand-off is starting meanwhile
};

// Cancels the parked tasks among `ids`: their records made `cancelled`
// under their ownership locks, a few hundred with one sync, their files
// removed from `.parked`, their --on-exit hooks run in detached processes;
// then one hand-off (tasks waiting on them fail). Claimed tasks are to be
// cancelled once they run; tasks gone or no longer parked are passed by.
// Throws Error(failure) when records cannot be written (a full disk):
// those tasks stay queued.
ParkedCancel cancel_parked_tasks(const TaskDir& dir, const std::vector<std::string>& ids,
                                 Reconciler reconcile, ParkedLauncher launch);

} // namespace bgtask
