#include <bgtask/core/queue_admission.hpp>
#include <bgtask/exec/executors.hpp>
#include <bgtask/exec/local/local_executor.hpp>
#include <bgtask/exec/local/parked_launch.hpp>
#include <bgtask/exec/local/pause_control.hpp>
#include <bgtask/exec/slurm/slurm_dependencies.hpp>
#include <bgtask/exec/slurm/slurm_executor.hpp>
#include <bgtask/proc/detached_fork.hpp>
#include <bgtask/store/atomic_file.hpp>
#include <bgtask/store/parked_tasks.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/util/error.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <map>

namespace bgtask {

namespace {

// One instance of each per process: the Slurm executor keeps what it learnt
// from the controller between calls (slurm_executor.hpp).
LocalExecutor& local_executor()
{
  static LocalExecutor local(reconcile_record);
  return local;
}

SlurmExecutor& slurm_executor()
{
  static SlurmExecutor slurm;
  return slurm;
}

} // namespace

Executor& executor_for(std::string_view name)
{
  if (name == k_local_executor) {
    return local_executor();
  }
  if (name == k_slurm_executor) {
    return slurm_executor();
  }
  throw Error(ExitCode::failure, "unknown executor '" + std::string(name) + "'");
}

bool is_executor_name(std::string_view name)
{
  return std::find(k_executor_names.begin(), k_executor_names.end(), name) !=
         k_executor_names.end();
}

void check_dependencies(const TaskDir& dir, const TaskRecord& record)
{
  if (record.executor == k_slurm_executor && !record.after.empty()) {
    load_slurm_dependencies(dir, record.after); // refuses local dependencies
  }
}

LaunchResult launch_array(const TaskDir& dir, std::vector<ClaimedTask> elements,
                          LaunchRequest request, const SlurmArraySpec& spec)
{
  return slurm_executor().launch_array(dir, std::move(elements), std::move(request), spec);
}

namespace {

// A final state seen in a record may so far be only a rename that its
// writer has not made durable yet (it fsyncs the directory right after):
// before anyone reports it, make it durable here. An fsync of a directory
// with nothing pending costs next to nothing; a read-only file system has
// nothing pending. Any other failure means the state may not survive a
// power cut, so it is not reported.
void confirm_final_states(const TaskDir& dir, const std::vector<TaskRecord>& records)
{
  if (std::none_of(records.begin(), records.end(),
                   [](const TaskRecord& r) { return is_final(r.state); })) {
    return;
  }
  int err = dir.sync();
  if (err == EINTR) {
    err = dir.sync();
  }
  if (err != 0 && err != EROFS && err != EINVAL) {
    throw_system("cannot make the records in " + dir.path() + " durable (fsync)", err);
  }
}

} // namespace

void request_pause(const TaskDir& dir, const TaskRecord& record, PauseAction action)
{
  if (record.executor != k_local_executor) {
    throw Error(ExitCode::failure, std::string("cannot ") +
                                     (action == PauseAction::pause ? "pause" : "resume") +
                                     " task " + record.id + ": it runs under the " +
                                     record.executor + " executor (only local tasks pause)");
  }
  request_pause_change(dir, record, action);
}

void admit_waiting_tasks(const TaskDir& dir, AdmitWhen when)
{
  constexpr std::chrono::milliseconds k_look_interval{1000};
  if (!is_single_threaded()) { // it forks
    return;
  }
  if (when == AdmitWhen::if_due && !lost_handoff_look_due(dir, k_look_interval)) {
    return;
  }
  local_executor().admit(dir);
}

void admit_tasks_waited_for(const TaskDir& dir, const std::vector<TaskRecord>& records)
{
  if (is_single_threaded()) { // it forks
    local_executor().admit_for(dir, records);
  }
}

std::string supervise_admitted_task(const TaskDir& dir, const AdmittedHandles& handles)
{
  return supervise_admitted_task(dir, handles, &reconcile_record);
}

TaskRecord reconcile_record(const TaskDir& dir, TaskRecord record)
{
  std::vector<TaskRecord> one;
  one.push_back(std::move(record));
  reconcile_records(dir, one);
  return std::move(one.front());
}

bool needs_reconciling(const TaskRecord& record)
{
  return !is_final(record.state) && !is_parked(record);
}

void reconcile_records(const TaskDir& dir, std::vector<TaskRecord>& records)
{
  // One directory fsync for every record the batch rewrites, not one each.
  DirSyncBatch dir_sync(dir);
  std::map<std::string, std::vector<std::size_t>> by_executor;
  for (std::size_t i = 0; i < records.size(); ++i) {
    if (needs_reconciling(records[i])) {
      by_executor[records[i].executor].push_back(i);
    }
  }
  for (const auto& [name, indices] : by_executor) {
    std::vector<TaskRecord> batch;
    for (const auto i : indices) {
      batch.push_back(std::move(records[i]));
    }
    executor_for(name).reconcile(dir, batch);
    for (std::size_t k = 0; k < indices.size(); ++k) {
      records[indices[k]] = std::move(batch[k]);
    }
  }
  dir_sync.finish();
  confirm_final_states(dir, records);
}

std::vector<TaskRecord> load_unfinished_records(const TaskDir& dir, const RecordFilter& keep)
{
  auto records = load_records(
    dir, [&](const TaskRecord& r) { return !is_final(r.state) && (!keep || keep(r)); });
  reconcile_records(dir, records);
  std::erase_if(records, [](const TaskRecord& r) { return is_final(r.state); });
  return records;
}

} // namespace bgtask
