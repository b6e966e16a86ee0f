#include <bgtask/exec/executors.hpp>
#include <bgtask/exec/task_cancel.hpp>
#include <bgtask/exec/task_waiter.hpp>
#include <bgtask/proc/process_info.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/utf8.hpp>

#include <algorithm>
#include <cmath>

namespace bgtask {

namespace {

constexpr Milliseconds k_check_interval{250};

// A running task of another host can only be cancelled there; waiting here
// for it to end would never return.
void refuse_if_elsewhere(const TaskRecord& record)
{
  if (!is_final(record.state) && record.executor == "local" && record.owner &&
      !is_this_machine(record.owner->host, record.owner->boot_id)) {
    throw Error(ExitCode::failure,
                "task " + record.id + " runs on host " + record.owner->host + "; cancel it there");
  }
}

Milliseconds grace_of(const TaskRecord& record, std::optional<Milliseconds> grace)
{
  if (grace) {
    return *grace;
  }
  return Milliseconds(static_cast<std::int64_t>(std::llround(record.grace_s * 1000)));
}

} // namespace

CancelResult cancel_tasks(const TaskDir& dir, const std::vector<std::string>& ids,
                          std::optional<Milliseconds> grace)
{
  const auto current = load_current_records(dir, ids);
  for (const auto& record : current) {
    refuse_if_elsewhere(record);
  }
  CancelResult result;
  Milliseconds longest{0};
  for (const auto& record : current) {
    result.was_final.push_back(is_final(record.state));
    if (!result.was_final.back()) {
      const Milliseconds own = grace_of(record, grace);
      longest = std::max(longest, own);
      executor_for(record.executor).cancel(dir, record, own, CancelAttempt::first);
    }
  }
  for (;;) {
    WaitResult waited = wait_for_tasks(dir, ids, WaitMode::all, longest + k_check_interval);
    if (waited.end != WaitEnd::gave_up) {
      result.records = std::move(waited.records);
      return result;
    }
    for (const auto& record : waited.records) {
      if (!is_final(record.state)) {
        executor_for(record.executor)
          .cancel(dir, record, grace_of(record, grace), CancelAttempt::repeat);
      }
    }
  }
}

} // namespace bgtask
