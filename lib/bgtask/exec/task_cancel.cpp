#include <bgtask/exec/executors.hpp>
#include <bgtask/exec/task_cancel.hpp>
#include <bgtask/exec/task_waiter.hpp>
#include <bgtask/exec/task_watcher.hpp>
#include <bgtask/proc/process_info.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/utf8.hpp>

#include <algorithm>
#include <chrono>
#include <iterator>
#include <unordered_map>
#include <utility>

namespace bgtask {

namespace {

using Clock = std::chrono::steady_clock;

constexpr Milliseconds k_check_interval{250};
// How often a cancel that may be hurried asks whether it is.
constexpr Milliseconds k_hurry_check{100};
// After the grace and this margin, a supervisor that is stopped counts as
// not answering; after the longer one, any supervisor does.
constexpr Milliseconds k_answer_margin{2000};
constexpr Milliseconds k_last_margin{10000};

// A running task of another host can only be cancelled there; waiting here
// for it to end would never return.
void refuse_if_elsewhere(const TaskRecord& record)
{
  if (!is_final(record.state) && record.executor == k_local_executor && record.owner &&
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
  return from_seconds(record.grace_s);
}

// Asks each of `order` to stop through its executor's cancel_all, the
// executors in the order of their first task. Returns the final records
// the executors wrote.
std::vector<TaskRecord>
cancel_in_order(const TaskDir& dir, const std::vector<const TaskRecord*>& order,
                const std::function<Milliseconds(const TaskRecord&)>& grace_of)
{
  std::vector<std::pair<std::string, std::vector<const TaskRecord*>>> by_executor;
  for (const TaskRecord* record : order) {
    auto it = std::find_if(by_executor.begin(), by_executor.end(),
                           [&](const auto& group) { return group.first == record->executor; });
    if (it == by_executor.end()) {
      it = by_executor.insert(by_executor.end(), {record->executor, {}});
    }
    it->second.push_back(record);
  }
  std::vector<TaskRecord> ended;
  for (const auto& [executor, records] : by_executor) {
    auto more = executor_for(executor).cancel_all(dir, records, grace_of);
    std::move(more.begin(), more.end(), std::back_inserter(ended));
  }
  return ended;
}

// What request_cancels asked and did.
struct CancelRequests
{
  Milliseconds longest{0};       // the longest grace asked
  std::vector<TaskRecord> ended; // the final records the executors wrote
};

// Asks each unfinished task of `current` to stop, queued tasks first and
// the newest of them first (a task can only wait `--after` older ones): a
// task waiting for one that is cancelled would otherwise fail for its
// dependency before its own cancel came.
CancelRequests request_cancels(const TaskDir& dir, const std::vector<TaskRecord>& current,
                               std::optional<Milliseconds> grace)
{
  std::vector<const TaskRecord*> order;
  for (const auto& record : current) {
    if (record.state == TaskState::queued) {
      order.push_back(&record);
    }
  }
  // IDs sort by creation time.
  std::sort(order.begin(), order.end(),
            [](const TaskRecord* a, const TaskRecord* b) { return a->id > b->id; });
  for (const auto& record : current) {
    if (!is_final(record.state) && record.state != TaskState::queued) {
      order.push_back(&record);
    }
  }
  CancelRequests requests;
  for (const TaskRecord* record : order) {
    requests.longest = std::max(requests.longest, grace_of(*record, grace));
  }
  requests.ended =
    cancel_in_order(dir, order, [grace](const TaskRecord& r) { return grace_of(r, grace); });
  return requests;
}

// The final records of `ids` known without reading them: those of
// `current` (their records, in order) and those a cancel wrote (`ended`).
std::vector<TaskRecord> final_records_known(const std::vector<std::string>& ids,
                                            std::vector<TaskRecord> current,
                                            std::vector<TaskRecord> ended)
{
  std::unordered_map<std::string, TaskRecord*> ended_by_id;
  for (auto& record : ended) {
    ended_by_id.emplace(record.id, &record);
  }
  std::vector<TaskRecord> known;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (is_final(current[i].state)) {
      known.push_back(std::move(current[i]));
    } else if (const auto it = ended_by_id.find(ids[i]); it != ended_by_id.end()) {
      known.push_back(std::move(*it->second));
    }
  }
  return known;
}

// Cancels the unfinished tasks among `records` again with no grace.
void cancel_without_grace(const TaskDir& dir, const std::vector<TaskRecord>& records)
{
  std::vector<const TaskRecord*> unfinished;
  for (const auto& record : records) {
    if (!is_final(record.state)) {
      unfinished.push_back(&record);
    }
  }
  cancel_in_order(dir, unfinished, [](const TaskRecord&) { return Milliseconds(0); });
}

} // namespace

CancelResult cancel_tasks(const TaskDir& dir, const std::vector<std::string>& ids,
                          std::optional<Milliseconds> grace, const std::function<bool()>& hurry,
                          std::vector<TaskRecord> read)
{
  bool hurried = false;
  TaskWatcher watcher(dir, WatchOutput::no); // one for every round
  auto current = load_current_records(dir, ids, std::move(read));
  for (const auto& record : current) {
    refuse_if_elsewhere(record);
  }
  CancelResult result;
  for (const auto& record : current) {
    result.was_final.push_back(is_final(record.state));
  }
  auto requests = request_cancels(dir, current, grace);
  const Milliseconds longest = requests.longest;
  auto known = final_records_known(ids, std::move(current), std::move(requests.ended));
  const auto started = Clock::now();
  auto next_repeat = started + longest + k_check_interval;
  for (;;) {
    // Until the margin: a repeat after each grace; after it, a look every
    // check interval.
    const auto overdue_at = started + longest + k_answer_margin;
    const auto at = Clock::now();
    auto until = std::min(next_repeat, at >= overdue_at ? at + k_check_interval : overdue_at);
    if (hurry && !hurried) {
      until = std::min(until, at + k_hurry_check);
    }
    WaitResult waited =
      wait_for_tasks(watcher, dir, ids, WaitMode::all,
                     std::max(std::chrono::ceil<Milliseconds>(until - at), Milliseconds(1)),
                     std::exchange(known, {}));
    if (waited.end != WaitEnd::gave_up) {
      result.records = std::move(waited.records);
      return result;
    }
    // The next round takes the final ones as they are, with no lock to take.
    std::copy_if(waited.records.begin(), waited.records.end(), std::back_inserter(known),
                 [](const TaskRecord& r) { return is_final(r.state); });
    if (hurry && !hurried && hurry()) {
      hurried = true;
      cancel_without_grace(dir, waited.records);
      continue;
    }
    const auto after = Clock::now() - started;
    const auto attempt = after >= longest + k_last_margin     ? CancelAttempt::last
                         : after >= longest + k_answer_margin ? CancelAttempt::overdue
                                                              : CancelAttempt::repeat;
    const bool repeat_due = Clock::now() >= next_repeat;
    if (repeat_due) {
      next_repeat = Clock::now() + longest + k_check_interval;
    }
    for (const auto& record : waited.records) {
      if (is_final(record.state)) {
        continue;
      }
      auto& executor = executor_for(record.executor);
      if (repeat_due) {
        executor.cancel(dir, record, grace_of(record, grace), CancelAttempt::repeat);
      }
      if (attempt != CancelAttempt::repeat) {
        if (auto problem = executor.cancel(dir, record, grace_of(record, grace), attempt)) {
          result.unanswered.push_back(std::move(*problem));
        }
      }
    }
    if (!result.unanswered.empty()) {
      result.records = std::move(waited.records);
      return result;
    }
  }
}

} // namespace bgtask
