#pragma once

#include <bgtask/exec/slurm/slurm_client.hpp>
#include <bgtask/exec/slurm/slurm_outcome.hpp>
#include <bgtask/util/duration.hpp>
#include <bgtask/util/timestamp.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace bgtask {

// An unfinished task's job, as its record names it.
struct SlurmWantedJob
{
  std::string task_id;
  std::string job_id;
  std::optional<std::string> cluster;
  std::string job_name; // what the task's job is called (recorded_job_name)
  TimePoint created_at;
  std::optional<TimePoint> missing_since;
  bool cancel_requested = false;
};

// What one round of questions to Slurm learnt, for the executor to take in.
struct SlurmRoundResult
{
  // Asked-about tasks' outcomes by task id; no outcome: nothing to change
  // (an unknown state, another cluster's job). Those the controller
  // answered for even if accounting then did not.
  std::vector<std::pair<std::string, std::optional<SlurmOutcome>>> seen;
  bool answered = false; // false: some jobs got no answer (see warnings)
  std::vector<std::chrono::steady_clock::time_point> calls;  // when each client call began
  std::optional<SlurmConfig> config;                         // the cluster's, if the round asked
  std::vector<std::pair<std::string, std::string>> warnings; // kind, message
};

// Asks the controller about `jobs`, then accounting about those it does
// not hold under the task's job name. `config`: the cluster's, if known
// (else asked for when accounting is needed). `since`: the oldest task's
// creation time. Writes nothing.
SlurmRoundResult run_slurm_round(const std::vector<SlurmWantedJob>& jobs, TimePoint since,
                                 std::optional<SlurmConfig> config);

// run_slurm_round on a thread of its own, so that a controller that does
// not answer keeps nobody from the outcome files meanwhile. The thread
// touches nothing but state it shares with this object; it is detached,
// so the process may exit while it waits for a client (which then runs to
// its own end, as an orphan).
class SlurmRoundThread
{
public:
  SlurmRoundThread(std::vector<SlurmWantedJob> jobs, TimePoint since,
                   std::optional<SlurmConfig> config);

  // Waits at most `limit`; true once the round is over.
  bool wait_for(Milliseconds limit);

  // The round's result, once wait_for said true; rethrows what the round
  // threw (a malformed $BGTASK_SLURM_TIMEOUT).
  SlurmRoundResult take();

private:
  struct State;
  std::shared_ptr<State> m_state;
};

} // namespace bgtask
