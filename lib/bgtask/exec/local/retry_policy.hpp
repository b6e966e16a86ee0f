#pragma once

#include <bgtask/core/task_record.hpp>

#include <optional>

namespace bgtask {

// How one attempt of a task's command ended, as far as retrying cares.
enum class AttemptEnd { succeeded, failed, timed_out, cancelled, oom };

struct AttemptResult
{
  AttemptEnd end = AttemptEnd::failed;
  std::optional<int> exit_code; // set when the command exited
  std::optional<int> signal;    // set when a signal killed it
};

// Whether the supervisor runs the command again after attempt `attempt`
// (1 for the first run) ended with `result`. Never after success or a
// cancel, nor once 1 + max_retries attempts ran. A timed-out attempt is
// retried only with `on_timeout`. A failure (or a kill by the memory limit)
// is retried when the policy names neither codes nor timeouts (no
// --retry-on), else only when it exited with one of `on_exit_codes`.
// Without a policy, never.
bool should_retry(const std::optional<RetryPolicy>& policy, int attempt,
                  const AttemptResult& result);

// The name an attempt's outcome is recorded with: succeeded, failed,
// timed_out, cancelled, oom.
const char* attempt_end_name(AttemptEnd end);

} // namespace bgtask
