#include <bgtask/exec/executors.hpp>
#include <bgtask/exec/task_pause.hpp>
#include <bgtask/exec/task_waiter.hpp>
#include <bgtask/exec/task_watcher.hpp>
#include <bgtask/util/error.hpp>

#include <chrono>

namespace bgtask {

namespace {

constexpr Milliseconds k_confirm_limit{10000};

bool confirmed(const TaskRecord& record, PauseAction action)
{
  return is_final(record.state) || record.pause.paused == (action == PauseAction::pause);
}

} // namespace

std::vector<TaskRecord> change_pause(const TaskDir& dir, const std::vector<std::string>& ids,
                                     PauseAction action)
{
  auto records = load_current_records(dir, ids);
  for (const auto& record : records) {
    if (!confirmed(record, action) || record.pause.requested != (action == PauseAction::pause)) {
      request_pause(dir, record, action);
    }
  }
  TaskWatcher watcher(dir, WatchOutput::no);
  const auto give_up = std::chrono::steady_clock::now() + k_confirm_limit;
  for (;;) {
    records = load_current_records(dir, ids);
    std::vector<TaskRecord> pending;
    for (const auto& record : records) {
      if (!confirmed(record, action)) {
        pending.push_back(record);
      }
    }
    if (pending.empty()) {
      return records;
    }
    if (std::chrono::steady_clock::now() >= give_up) {
      throw Error(ExitCode::failure,
                  "the supervisor of task " + pending.front().id + " did not confirm within 10s");
    }
    watcher.wait_for_change(pending, Milliseconds(200));
  }
}

} // namespace bgtask
