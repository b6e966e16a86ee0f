#include <bgtask/core/queue_admission.hpp>
#include <bgtask/exec/executors.hpp>
#include <bgtask/exec/task_waiter.hpp>
#include <bgtask/exec/task_watcher.hpp>
#include <bgtask/proc/interrupts.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/store/task_files.hpp>
#include <bgtask/store/task_lock.hpp>
#include <bgtask/util/error.hpp>

#include <algorithm>
#include <chrono>
#include <memory>
#include <set>
#include <sys/inotify.h>
#include <sys/resource.h>

namespace bgtask {

namespace {

// How often a wait for a parked task looks for a hand-off that was lost.
constexpr Milliseconds k_parked_recheck{1000};

// How often a wait over parked tasks re-reads them (the safety poll's), and
// how many of them at a time, in turn: their own changes are events, seen
// at once where the watch works.
constexpr Milliseconds k_look_all_interval{5000};
constexpr std::size_t k_parked_per_look = 1000;

TaskRecord load_existing_record(const TaskDir& dir, const std::string& id)
{
  auto loaded = load_record(dir, id);
  if (loaded.status == LoadStatus::missing) {
    // `id` was resolved before, so the task was removed since.
    throw Error(ExitCode::removed, "task " + id + " was removed from " + dir.path() +
                                     " before its final state could be read");
  }
  if (loaded.status == LoadStatus::corrupt) {
    throw Error(ExitCode::failure, "record of task " + id + " is corrupt: " + loaded.reason);
  }
  return std::move(loaded.record);
}

// Descriptors a wait leaves free for reading records and watching them.
constexpr rlim_t k_spare_descriptors = 64;

// How many reader locks a wait may hold: its soft limit on descriptors,
// raised toward the hard one for `wanted` of them, less the spare ones.
std::size_t holdable_locks(std::size_t wanted)
{
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) {
    return 0;
  }
  if (limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < wanted + k_spare_descriptors) {
    rlimit raised = limit;
    raised.rlim_cur = limit.rlim_max == RLIM_INFINITY
                        ? wanted + k_spare_descriptors
                        : std::min<rlim_t>(limit.rlim_max, wanted + k_spare_descriptors);
    if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) {
      limit = raised;
    }
  }
  if (limit.rlim_cur == RLIM_INFINITY) {
    return wanted;
  }
  return limit.rlim_cur > k_spare_descriptors ? limit.rlim_cur - k_spare_descriptors : 0;
}

// Holds the reader lock of each of `ids` (task_lock.hpp), so that `cleanup`
// leaves the tasks until the wait has read their final records. Best effort:
// a task already being removed is not held, and where descriptors are short
// the rest are waited for without, k_spare_descriptors being left for
// reading their records.
std::vector<TaskLock> hold_for_reading(const TaskDir& dir, const std::vector<std::string>& ids)
{
  std::vector<TaskLock> held;
  const std::size_t most = holdable_locks(ids.size());
  for (const auto& id : ids) {
    if (held.size() >= most) {
      break;
    }
    try {
      auto lock = TaskLock::open_existing(dir, id);
      if (lock && lock->try_hold_for_reading()) {
        held.push_back(std::move(*lock));
      }
    } catch (const Error&) {
      break;
    }
  }
  return held;
}

// What the watcher's events said since the last look: the tasks whose
// files changed, or that every task may have (events were lost).
struct SeenChanges
{
  std::set<std::string> ids;
  bool all = false;
};

// The records a wait looks at, re-read only where they may have changed,
// so that a look costs what runs, not what waits: a final record never
// changes; an unfinished one is re-read when an event names its files, a
// running one at every look (its supervisor's exit wakes the wait without
// naming it), every unfinished one after lost events, and after a wake that
// was no event (a poll, the safety poll) every one but the parked ones,
// which are re-read k_parked_per_look at a time, in turn.
class LookedRecords
{
public:
  LookedRecords(TaskWatcher& watcher, const std::vector<std::string>& ids,
                std::vector<TaskRecord> read_since_watch)
    : m_ids(ids),
      m_changes(std::make_shared<SeenChanges>()),
      m_known(std::move(read_since_watch)),
      m_events(watcher.event_driven())
  {
    std::erase_if(m_known, [](const TaskRecord& r) {
      return r.state != TaskState::queued && !is_final(r.state);
    });
    // The watcher's default filter, which also notes what it saw.
    watcher.filter_events([changes = m_changes](std::string_view name, std::uint32_t mask) {
      if ((mask & IN_Q_OVERFLOW) != 0) {
        changes->all = true;
        return true;
      }
      const auto file = parse_task_file_name(name);
      if (!file || (file->kind != TaskFileKind::status && file->kind != TaskFileKind::output &&
                    file->kind != TaskFileKind::outcome)) {
        return false;
      }
      changes->ids.insert(file->id);
      return true;
    });
  }

  // Brings `records` (empty on the first look, then what the last look
  // left) up to date, in the order of the IDs; `all`: every unfinished one
  // may have changed unseen.
  void look(const TaskDir& dir, bool all, std::vector<TaskRecord>& records)
  {
    std::vector<std::size_t> stale;
    std::vector<std::size_t> parked; // not named by an event
    for (std::size_t i = 0; i < m_ids.size(); ++i) {
      const bool unfinished = !records.empty() && !is_final(records[i].state);
      if (records.empty() || (unfinished && (m_changes->all || must_reread(records[i], i)))) {
        stale.push_back(i);
      } else if (unfinished && all) {
        parked.push_back(i);
      }
    }
    take_turn(parked, stale);
    std::sort(stale.begin(), stale.end());
    m_changes->ids.clear();
    m_changes->all = false;
    std::vector<std::string> stale_ids;
    stale_ids.reserve(stale.size());
    for (const auto i : stale) {
      stale_ids.push_back(m_ids[i]);
    }
    // m_known is for the first look only
    auto batch = load_current_records(dir, stale_ids, std::exchange(m_known, {}));
    if (records.empty()) {
      records = std::move(batch);
      return;
    }
    for (std::size_t k = 0; k < stale.size(); ++k) {
      records[stale[k]] = std::move(batch[k]);
    }
  }

  // The IDs whose final record the first look will not take as known.
  std::vector<std::string> not_known_final() const
  {
    std::vector<std::string> ids;
    std::size_t next_known = 0;
    for (const auto& id : m_ids) {
      if (next_known < m_known.size() && m_known[next_known].id == id) {
        if (is_final(m_known[next_known++].state)) {
          continue;
        }
      }
      ids.push_back(id);
    }
    return ids;
  }

private:
  // Adds to `stale` the next k_parked_per_look of `parked` (ascending)
  // after the last one re-read so, from the first again after the last.
  void take_turn(const std::vector<std::size_t>& parked, std::vector<std::size_t>& stale)
  {
    if (!m_events || parked.size() <= k_parked_per_look) { // polling: no event names a change
      stale.insert(stale.end(), parked.begin(), parked.end());
      return;
    }
    const auto from = static_cast<std::size_t>(
      std::lower_bound(parked.begin(), parked.end(), m_parked_turn) - parked.begin());
    for (std::size_t n = 0; n < k_parked_per_look; ++n) {
      stale.push_back(parked[(from + n) % parked.size()]);
    }
    m_parked_turn = stale.back() + 1;
  }

  // Whether an unfinished record must be read again though no look-all.
  bool must_reread(const TaskRecord& record, std::size_t i) const
  {
    return record.state != TaskState::queued || !record.waiting_for ||
           m_changes->ids.contains(m_ids[i]);
  }

  const std::vector<std::string>& m_ids;
  std::shared_ptr<SeenChanges> m_changes; // shared with the watcher's filter
  std::vector<TaskRecord> m_known;        // what the first look need not read
  std::size_t m_parked_turn = 0;          // take_turn's next index
  bool m_events;                          // the watcher reports changes (else it polls)
};

} // namespace

TaskRecord load_current_record(const TaskDir& dir, const std::string& id)
{
  return reconcile_record(dir, load_existing_record(dir, id));
}

std::vector<TaskRecord> load_current_records(const TaskDir& dir,
                                             const std::vector<std::string>& ids,
                                             std::vector<TaskRecord> read)
{
  // In place, from the back: each record read moves to its ID's place and
  // the others are loaded into the gaps, so a big selection is held once.
  std::vector<TaskRecord> records = std::move(read);
  std::size_t next_read = std::min(records.size(), ids.size());
  records.resize(ids.size());
  for (std::size_t k = ids.size(); k-- > 0;) {
    if (next_read > 0 && records[next_read - 1].id == ids[k]) {
      if (--next_read != k) {
        records[k] = std::move(records[next_read]);
      }
    } else {
      records[k] = load_existing_record(dir, ids[k]);
    }
  }
  reconcile_records(dir, records);
  return records;
}

std::optional<Milliseconds> recheck_interval(const std::vector<TaskRecord>& records)
{
  std::optional<Milliseconds> interval;
  for (const auto& record : records) {
    if (is_final(record.state)) {
      continue;
    }
    if (const auto own = executor_for(record.executor).recheck_interval()) {
      interval = std::min(interval.value_or(*own), *own);
    }
  }
  return interval;
}

WaitResult wait_for_tasks(const TaskDir& dir, const std::vector<std::string>& ids, WaitMode mode,
                          std::optional<Milliseconds> limit, Interrupts interrupts)
{
  TaskWatcher watcher(dir, WatchOutput::no);
  if (interrupts == Interrupts::end_wait) {
    watcher.watch_interrupts();
  }
  return wait_for_tasks(watcher, dir, ids, mode, limit);
}

WaitResult wait_for_tasks(TaskWatcher& watcher, const TaskDir& dir,
                          const std::vector<std::string>& ids, WaitMode mode,
                          std::optional<Milliseconds> limit,
                          std::vector<TaskRecord> read_since_watch)
{
  using Clock = std::chrono::steady_clock;
  const auto deadline = limit ? std::optional(Clock::now() + *limit) : std::nullopt;
  const bool interrupts = watcher.watches_interrupts();
  LookedRecords looked(watcher, ids, std::move(read_since_watch));
  const auto held = hold_for_reading(dir, looked.not_known_final());
  std::optional<Wake> wake;
  std::optional<Milliseconds> recheck; // an executor's, as of the last look
  std::optional<Clock::time_point> admitted_at;
  auto looked_at_all = Clock::now();
  WaitResult result;
  for (;;) {
    // A wake that was no event may hide changes, unless it only ended the
    // parked tasks' recheck below (their changes are events) and the last
    // look at all of them is recent (events can be lost: a directory
    // shared by hosts, no inotify).
    const bool limit_of_parked =
      wake == Wake::limit && !recheck && Clock::now() - looked_at_all < k_look_all_interval;
    const bool look_all = !wake || (*wake != Wake::changed && !limit_of_parked);
    if (look_all) {
      looked_at_all = Clock::now();
    }
    looked.look(dir, look_all, result.records);
    if (std::any_of(result.records.begin(), result.records.end(), is_parked) &&
        (!admitted_at || Clock::now() - *admitted_at >= k_parked_recheck)) {
      // A hand-off lost with a supervisor that died is made here; looked
      // for once in a while, not at every change of a draining queue.
      admit_tasks_waited_for(dir, result.records);
      admitted_at = Clock::now();
    }
    const auto finished = std::count_if(result.records.begin(), result.records.end(),
                                        [](const TaskRecord& r) { return is_final(r.state); });
    const bool done =
      mode == WaitMode::any ? finished > 0 : finished == static_cast<long>(result.records.size());
    if (done) {
      return result;
    }
    if (interrupts && interrupt_signal() != 0) {
      result.end = WaitEnd::interrupted;
      return result;
    }
    std::optional<Milliseconds> left;
    if (deadline) {
      left = std::chrono::ceil<Milliseconds>(*deadline - Clock::now());
      if (left->count() <= 0) {
        result.end = WaitEnd::gave_up;
        return result;
      }
    }
    recheck = recheck_interval(result.records);
    if (recheck) {
      left = std::min(left.value_or(*recheck), *recheck);
    }
    if (std::any_of(result.records.begin(), result.records.end(), is_parked)) {
      left = std::min(left.value_or(k_parked_recheck), k_parked_recheck);
    }
    wake = watcher.wait_for_change(result.records, left);
  }
}

} // namespace bgtask
