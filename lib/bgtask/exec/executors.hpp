#pragma once

#include <bgtask/core/task_record.hpp>
#include <bgtask/exec/admitted_handles.hpp>
#include <bgtask/exec/executor.hpp>
#include <bgtask/exec/pause_action.hpp>
#include <bgtask/store/record_store.hpp>

#include <string_view>
#include <vector>

namespace bgtask {

class TaskDir;

// The registry: the one place that knows every executor.

// The executor named by a record's `executor` field; throws Error(failure)
// for an unknown name.
Executor& executor_for(std::string_view name);

// True for the names executor_for knows (`local`, `slurm`).
bool is_executor_name(std::string_view name);

// Refuses --after tasks (`record.after`, resolved IDs) that the executor
// `record` names cannot wait for: a Slurm job waits only for Slurm jobs
// (slurm_dependencies.hpp). Throws Error(usage).
void check_dependencies(const TaskDir& dir, const TaskRecord& record);

// `start --array`: one task per element of `spec` (`elements`, in the order
// of spec.indices), all in one Slurm job array (SlurmExecutor::launch_array).
LaunchResult launch_array(const TaskDir& dir, std::vector<ClaimedTask> elements,
                          LaunchRequest request, const SlurmArraySpec& spec);

// Asks the executor of `record` to stop (pause) or continue (resume) the
// task's process tree and returns without waiting (the local executor:
// pause_control.hpp). Throws Error(failure) where it cannot; the slurm
// executor never pauses.
void request_pause(const TaskDir& dir, const TaskRecord& record, PauseAction action);

// Brings an unfinished record in line with reality and returns the current
// record, through the executor its `executor` field names. Final records
// are returned untouched. Returns only once a final state it returns is
// durable (the directory is fsynced when one is), so that a caller may
// report it: a power cut afterwards cannot take it back.
TaskRecord reconcile_record(const TaskDir& dir, TaskRecord record);

// The unfinished records of the directory that `keep` accepts (all without
// it), reconciled as one batch; those found final meanwhile are left out.
std::vector<TaskRecord> load_unfinished_records(const TaskDir& dir,
                                                const RecordFilter& keep = nullptr);

// When admit_waiting_tasks looks: now, or only if no invocation looked in
// the last second (what opening a task directory does, so that a command
// pays for a look over every waiting task once a second at most).
enum class AdmitWhen { now, if_due };

// Starts the parked tasks that may start now (a hand-off lost with a
// process that died): what every invocation does when it opens a task
// directory. It may fork, so it does nothing in a process that runs
// threads (`bgtask mcp`'s requests). One failed open when nothing is
// parked. Never throws.
void admit_waiting_tasks(const TaskDir& dir, AdmitWhen when = AdmitWhen::now);

// admit_waiting_tasks for a waiter on `records`: only if one of its parked
// tasks waits for --after tasks, or a queue one of them waits in has a
// free slot (a lost hand-off), so that waiting on a long line does not
// read all of it every time.
void admit_tasks_waited_for(const TaskDir& dir, const std::vector<TaskRecord>& records);

// `bgtask __supervise`: the supervisor of a parked task a hand-off
// admitted, in the process it started for it (admitted_handles.hpp).
// Returns only if it cannot supervise the task, saying why.
std::string supervise_admitted_task(const TaskDir& dir, const AdmittedHandles& handles);

// True for a record that reconciliation may change: unfinished, and not a
// parked task (queue_admission.hpp), which has no process to lose.
bool needs_reconciling(const TaskRecord& record);

// reconcile_record for many records at once, in place: each executor gets
// its records as one batch, so a remote executor asks its backend once.
void reconcile_records(const TaskDir& dir, std::vector<TaskRecord>& records);

} // namespace bgtask
