#include <bgtask/exec/executor.hpp>
#include <bgtask/exec/local/local_executor.hpp>
#include <bgtask/exec/slurm/slurm_executor.hpp>
#include <bgtask/util/error.hpp>

namespace bgtask {

Executor& executor_for(std::string_view name)
{
  // One instance of each per process: the Slurm executor keeps what it
  // learnt from the controller between calls (slurm_executor.hpp).
  static LocalExecutor local;
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

} // namespace bgtask
