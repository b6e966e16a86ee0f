#include <bgtask/exec/slurm/slurm_dependencies.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/util/error.hpp>

namespace bgtask {

std::vector<TaskRecord> load_slurm_dependencies(const TaskDir& dir,
                                                const std::vector<std::string>& ids)
{
  std::vector<TaskRecord> records;
  for (const auto& id : ids) {
    auto loaded = load_record(dir, id);
    if (loaded.status != LoadStatus::ok) {
      throw Error(ExitCode::failure,
                  "--after: cannot read the record of task " + id +
                    (loaded.reason.empty() ? std::string() : ": " + loaded.reason));
    }
    if (loaded.record.executor != k_slurm_executor || !loaded.record.slurm) {
      throw_usage("--after " + id +
                  ": a Slurm task can only wait for Slurm tasks, and this one runs locally "
                  "(start it with --executor slurm, or run the dependent task locally)");
    }
    records.push_back(std::move(loaded.record));
  }
  return records;
}

SlurmDependencies judge_slurm_dependencies(const std::vector<TaskRecord>& dependencies,
                                           const std::string& cluster)
{
  SlurmDependencies judged;
  for (const auto& dependency : dependencies) {
    const auto& job = *dependency.slurm;
    if (job.cluster && *job.cluster != cluster) {
      throw_usage("--after " + dependency.id + ": its Slurm job " + job.job_id +
                  " belongs to cluster " + *job.cluster + ", not to " + cluster);
    }
    if (!is_final(dependency.state)) {
      judged.job_ids.push_back(job.job_id);
    } else if (dependency.state != TaskState::succeeded && !judged.failed) {
      judged.failed =
        "dependency " + dependency.id + " did not succeed: " + outcome_text(dependency);
    }
  }
  return judged;
}

std::optional<std::string> failed_dependency(const std::vector<TaskRecord>& dependencies,
                                             std::optional<TimePoint> cancelled_at)
{
  for (const auto& dependency : dependencies) {
    if (!is_final(dependency.state) || dependency.state == TaskState::succeeded) {
      continue;
    }
    // Slurm's times are whole seconds: the dependency's end, as recorded,
    // is not after the second the job was cancelled in.
    const auto ended = dependency.finished_at;
    if (cancelled_at && (!ended || std::chrono::floor<std::chrono::seconds>(*ended) >
                                     std::chrono::floor<std::chrono::seconds>(*cancelled_at))) {
      continue;
    }
    return "dependency " + dependency.id + " did not succeed: " + outcome_text(dependency);
  }
  return std::nullopt;
}

} // namespace bgtask
