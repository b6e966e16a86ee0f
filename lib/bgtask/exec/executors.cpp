#include <bgtask/exec/executors.hpp>
#include <bgtask/exec/local/local_executor.hpp>
#include <bgtask/exec/slurm/slurm_executor.hpp>
#include <bgtask/util/error.hpp>

#include <map>

namespace bgtask {

Executor& executor_for(std::string_view name)
{
  // One instance of each per process: the Slurm executor keeps what it
  // learnt from the controller between calls (slurm_executor.hpp).
  static LocalExecutor local(reconcile_record);
  static SlurmExecutor slurm;
  if (name == "local") {
    return local;
  }
  if (name == "slurm") {
    return slurm;
  }
  throw Error(ExitCode::failure, "unknown executor '" + std::string(name) + "'");
}

bool is_executor_name(std::string_view name)
{
  return name == "local" || name == "slurm";
}

TaskRecord reconcile_record(const TaskDir& dir, TaskRecord record)
{
  if (is_final(record.state)) {
    return record;
  }
  std::vector<TaskRecord> one;
  one.push_back(std::move(record));
  executor_for(one.front().executor).reconcile(dir, one);
  return std::move(one.front());
}

void reconcile_records(const TaskDir& dir, std::vector<TaskRecord>& records)
{
  std::map<std::string, std::vector<std::size_t>> by_executor;
  for (std::size_t i = 0; i < records.size(); ++i) {
    if (!is_final(records[i].state)) {
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
}

} // namespace bgtask
