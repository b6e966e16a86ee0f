#include <bgtask/task_waiter.hpp>

#include <bgtask/error.hpp>
#include <bgtask/reconcile.hpp>
#include <bgtask/record_store.hpp>
#include <bgtask/task_dir.hpp>
#include <bgtask/task_watcher.hpp>

#include <algorithm>
#include <chrono>

namespace bgtask {

TaskRecord load_current_record(const TaskDir& dir, const std::string& id)
{
  auto loaded = load_record(dir, id);
  if (loaded.status == LoadStatus::missing) {
    // `id` was resolved before, so the record has gone since.
    throw Error(ExitCode::failure, "the record of task " + id + " disappeared from " + dir.path());
  }
  if (loaded.status == LoadStatus::corrupt) {
    throw Error(ExitCode::failure, "record of task " + id + " is corrupt: " + loaded.reason);
  }
  return reconcile_record(dir, std::move(loaded.record));
}

WaitResult wait_for_tasks(const TaskDir& dir, const std::vector<std::string>& ids, WaitMode mode,
                          std::optional<Milliseconds> limit)
{
  using Clock = std::chrono::steady_clock;
  const auto deadline = limit ? std::optional(Clock::now() + *limit) : std::nullopt;
  TaskWatcher watcher(dir, WatchOutput::no);
  WaitResult result;
  for (;;) {
    result.records.clear();
    for (const auto& id : ids) {
      result.records.push_back(load_current_record(dir, id));
    }
    const auto finished = std::count_if(result.records.begin(), result.records.end(),
                                        [](const TaskRecord& r) { return is_final(r.state); });
    const bool done = mode == WaitMode::any ? finished > 0
                                            : finished == static_cast<long>(result.records.size());
    if (done) {
      return result;
    }
    std::optional<Milliseconds> left;
    if (deadline) {
      left = std::chrono::ceil<Milliseconds>(*deadline - Clock::now());
      if (left->count() <= 0) {
        result.timed_out = true;
        return result;
      }
    }
    watcher.wait_for_change(result.records, left);
  }
}

} // namespace bgtask
