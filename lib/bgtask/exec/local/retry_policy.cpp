#include <bgtask/exec/local/retry_policy.hpp>

#include <algorithm>

namespace bgtask {

bool should_retry(const std::optional<RetryPolicy>& policy, int attempt,
                  const AttemptResult& result)
{
  if (!policy || attempt > policy->max_retries) {
    return false;
  }
  switch (result.end) {
  case AttemptEnd::succeeded:
  case AttemptEnd::cancelled:
    return false;
  case AttemptEnd::timed_out:
    return policy->on_timeout;
  case AttemptEnd::failed:
  case AttemptEnd::oom:
    break;
  }
  const auto& codes = policy->on_exit_codes;
  if (codes.empty()) {
    return !policy->on_timeout; // no --retry-on: any failure; `timed_out` alone: only timeouts
  }
  return result.exit_code &&
         std::find(codes.begin(), codes.end(), *result.exit_code) != codes.end();
}

const char* attempt_end_name(AttemptEnd end)
{
  switch (end) {
  case AttemptEnd::succeeded:
    return "succeeded";
  case AttemptEnd::failed:
    return "failed";
  case AttemptEnd::timed_out:
    return "timed_out";
  case AttemptEnd::cancelled:
    return "cancelled";
  case AttemptEnd::oom:
    return "oom";
  }
  return "failed";
}

} // namespace bgtask
