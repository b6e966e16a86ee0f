// The hand-off. One pass reads `.parked` (sorted: the order of creation)
// and looks at each parked task once; a pass that ended or moved a task
// (which may settle another's --after) is followed by another. A queue
// found full, or into which this hand-off may admit no more, is not looked
// at again in that pass, so the tasks behind it cost nothing but their
// name.
//
// A supervisor admits no more tasks into a queue than it freed slots of it
// (one, or none) plus the tasks it moved into that queue's line: a slot
// that frees while it hands off is its own supervisor's to fill. Without
// that bound, every supervisor of a short task filled every slot it found
// free, and each of the tasks it started did the same when it ended, so the
// supervisors in a hand-off multiplied faster than the queue drained. An
// invocation fills every free slot (a hand-off lost with a supervisor that
// died), as does `cancel`.
//
// A claim takes the queue's lock, a free slot's lock and the task's
// ownership lock, in that order, and re-reads the record under them; it
// releases the queue's lock before the launch. The supervisor forked for the task inherits the slot
// and ownership locks (flock and OFD locks belong to the open file description). A claimer that
// dies before the fork releases both with its descriptors, and the task is still parked; a
// supervisor that dies after it releases them too, and its task is reconciled like any other whose
// supervisor died.

#include <bgtask/core/queue_admission.hpp>
#include <bgtask/exec/local/exit_hook.hpp>
#include <bgtask/exec/local/queue_handoff.hpp>
#include <bgtask/exec/local/supervisor_plan.hpp>
#include <bgtask/proc/detached_fork.hpp>
#include <bgtask/store/dir_lock.hpp>
#include <bgtask/store/parked_tasks.hpp>
#include <bgtask/store/queue_settings.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/record_transaction.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/store/task_lock.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/test_seams.hpp>

#include <algorithm>
#include <fcntl.h>
#include <map>
#include <set>
#include <unistd.h>

namespace bgtask {

namespace {

constexpr int k_max_passes = 64;

// How many parked tasks a cancel ends with one sync (their ownership locks
// are held together).
constexpr std::size_t k_cancel_batch = 256;

// What follows the final record of a parked task (its ownership held by
// `lock`, one of `batch` if given): its file in `.parked` removed, its
// --on-exit hook.
void after_parked_end(const TaskDir& dir, TaskLock& lock, const TaskRecord& ended,
                      const std::vector<TaskLock>& batch = {})
{
  unpark_task(dir, ended.id, ended.queue);
  if (ended.on_exit) {
    static_cast<void>(fork_detached([&] {
      // An inherited copy of another task's lock would hold it while the hook runs.
      for (const TaskLock& other : batch) {
        if (&other != &lock) {
          ::close(other.fd());
        }
      }
      run_exit_hook(dir, lock, ended);
    }));
  }
}

// Ends a parked task that will not run (its ownership held by `lock`):
// the final record, its file in `.parked` removed, its --on-exit hook.
// Throws Error(failure) when the record cannot be written (a full disk):
// the task then stays parked, as it was.
void end_parked(const TaskDir& dir, TaskLock& lock, const TaskRecord& record, TaskState state,
                const std::string& reason, const char* event)
{
  const auto update = update_record(dir, lock, record.id, [&](TaskRecord& r) {
    if (!is_parked(r)) {
      return Change::keep;
    }
    if (event != nullptr) {
      add_event(r, event);
    }
    finish_record(r, state, reason);
    return Change::save;
  });
  if (update.status == UpdateStatus::saved) {
    after_parked_end(dir, lock, update.record);
  }
}

// Takes a parked task: its ownership lock, and its record read under it.
// nullopt if another process holds it, or it is gone or no longer parked.
std::optional<TaskLock> claim_task(const TaskDir& dir, const std::string& id, TaskRecord& current)
{
  auto lock = TaskLock::open_existing(dir, id);
  if (!lock || lock->read_only() || !lock->try_take_ownership()) {
    return std::nullopt;
  }
  auto loaded = load_record(dir, id);
  if (loaded.status != LoadStatus::ok || !is_parked(loaded.record)) {
    return std::nullopt;
  }
  current = std::move(loaded.record);
  return lock;
}

struct DependencyCheck
{
  DependencyState state = DependencyState::succeeded;
  std::string reason; // why it failed
};

// The --after tasks of `record`: failed as soon as one did not succeed
// (or is gone), else waiting while one is unfinished.
DependencyCheck check_dependencies(const TaskDir& dir, const TaskRecord& record,
                                   Reconciler reconcile)
{
  DependencyCheck check;
  for (const auto& id : record.after) {
    auto loaded = load_record(dir, id);
    if (loaded.status == LoadStatus::missing) {
      return {DependencyState::failed, "dependency " + id + " no longer exists"};
    }
    if (loaded.status == LoadStatus::corrupt) {
      return {DependencyState::failed,
              "dependency " + id + " has a corrupt record: " + loaded.reason};
    }
    const TaskRecord dependency =
      reconcile != nullptr ? reconcile(dir, std::move(loaded.record)) : std::move(loaded.record);
    const auto state = dependency_state(dependency);
    if (state == DependencyState::failed) {
      return {DependencyState::failed,
              "dependency " + id + " did not succeed: " + outcome_text(dependency)};
    }
    if (state == DependencyState::waiting) {
      check.state = DependencyState::waiting;
    }
  }
  return check;
}

// Whether the task a slot file names still runs (its supervisor died
// while the command goes on: the slot stays taken).
bool still_runs(const TaskDir& dir, Reconciler reconcile, const std::string& id)
{
  auto loaded = load_record(dir, id);
  if (loaded.status != LoadStatus::ok || is_final(loaded.record.state)) {
    return false;
  }
  const TaskRecord current =
    reconcile != nullptr ? reconcile(dir, std::move(loaded.record)) : loaded.record;
  return current.state == TaskState::running;
}

// A slot lock of `queue` that no one holds and whose last task is over;
// nullopt while the queue's running tasks fill its slots (tasks above
// the slot count, left by a lowered --slots, count too).
std::optional<DirLock> free_slot(const TaskDir& dir, Reconciler reconcile, const std::string& queue,
                                 std::size_t& index)
{
  const std::size_t slots = slots_of(load_queue_settings(dir, queue));
  std::optional<DirLock> first;
  std::size_t free = 0;
  std::size_t busy_above = 0;
  for (std::size_t k = 0; k < k_max_queue_slots; ++k) {
    const auto name = queue_slot_file_name(queue, k);
    if (k >= slots && ::faccessat(dir.fd(), name.c_str(), F_OK, AT_SYMLINK_NOFOLLOW) != 0) {
      break;
    }
    std::optional<DirLock> lock;
    try {
      lock = DirLock::try_acquire(dir, name);
    } catch (const Error&) {
      continue; // an unusable slot file: another slot
    }
    const bool busy = !lock || still_runs(dir, reconcile, read_slot_occupant(lock->fd()));
    if (k >= slots) {
      busy_above += busy ? 1 : 0;
    } else if (!busy && ++free == 1) {
      first = std::move(lock);
      index = k;
    }
  }
  return free > busy_above ? std::move(first) : std::nullopt;
}

class HandOff
{
public:
  HandOff(const TaskDir& dir, Reconciler reconcile, ParkedLauncher launch, HandOffBy by,
          const std::optional<std::string>& freed_queue)
    : m_dir(dir),
      m_reconcile(reconcile),
      m_launch(launch),
      m_by(by)
  {
    if (by == HandOffBy::supervisor && freed_queue) {
      m_budget[*freed_queue] = 1;
    }
  }

  void run()
  {
    for (int pass = 0; pass < k_max_passes; ++pass) {
      m_changed = false;
      m_full.clear();
      for (const auto& entry : scan_parked_tasks(m_dir)) {
        try {
          visit(entry);
        } catch (const Error&) {
          // this one cannot be judged now: the next hand-off looks again
        }
      }
      if (!m_changed) {
        return;
      }
    }
  }

private:
  void seam(const char* point) const
  {
    if (m_by == HandOffBy::supervisor) {
      kill_at_handoff_seam(point);
    }
  }

  void visit(const ParkedEntry& entry)
  {
    if (entry.queue && (m_full.contains(*entry.queue) || !may_admit(*entry.queue))) {
      return;
    }
    auto loaded = load_record(m_dir, entry.id);
    if (loaded.status == LoadStatus::corrupt) {
      return;
    }
    if (loaded.status == LoadStatus::missing) {
      drop_if_abandoned(entry);
      return;
    }
    const TaskRecord& record = loaded.record;
    if (!is_parked(record)) {
      unpark_task(m_dir, entry.id, entry.queue); // it ran, or ended
      return;
    }
    if (record.waiting_for == WaitingFor::after || !record.queue) {
      settle_dependencies(entry, record);
    } else if (!entry.queue) {
      // Its record entered the line, its file did not yet.
      if (move_to_queue_line(m_dir, entry.id, *record.queue)) {
        moved_into(*record.queue);
      }
      m_changed = true;
    } else {
      admit_in_queue(entry, *record.queue);
    }
  }

  // A file whose task has no record: `start` is still writing it (it holds
  // the task's ownership), or died before the record (then it goes).
  void drop_if_abandoned(const ParkedEntry& entry)
  {
    auto lock = TaskLock::open_existing(m_dir, entry.id);
    if (!lock || (!lock->read_only() && lock->try_take_ownership())) {
      if (load_record(m_dir, entry.id).status == LoadStatus::missing) {
        unpark_task(m_dir, entry.id, entry.queue);
      }
    }
  }

  void settle_dependencies(const ParkedEntry& entry, const TaskRecord& record)
  {
    const auto check = check_dependencies(m_dir, record, m_reconcile);
    if (check.state == DependencyState::waiting) {
      return;
    }
    TaskRecord current;
    auto lock = claim_task(m_dir, entry.id, current);
    if (!lock) {
      return;
    }
    m_changed = true;
    if (check.state == DependencyState::failed) {
      end_parked(m_dir, *lock, current, TaskState::failed, check.reason, nullptr);
    } else if (!current.queue) {
      seam("after_claim");
      m_launch(m_dir, AdmittedTask{std::move(*lock), std::move(current), entry, {}, 0},
               m_reconcile);
      seam("after_fork");
    } else {
      const std::string queue = *current.queue;
      update_record(m_dir, *lock, entry.id, [&](TaskRecord& r) {
        if (!is_parked(r)) {
          return Change::keep;
        }
        r.waiting_for = WaitingFor::slot;
        add_event(r, "waiting", "dependencies succeeded; waiting for a slot in queue " + queue);
        return Change::save;
      });
      if (move_to_queue_line(m_dir, entry.id, queue)) {
        moved_into(queue);
      }
    }
  }

  // A supervisor may admit one more task into `queue`: it moved one there.
  void moved_into(const std::string& queue)
  {
    if (m_by == HandOffBy::supervisor) {
      ++m_budget[queue];
    }
  }

  // Whether this hand-off may admit another task into `queue`.
  bool may_admit(const std::string& queue) const
  {
    if (m_by == HandOffBy::invocation) {
      return true;
    }
    const auto it = m_budget.find(queue);
    return it != m_budget.end() && it->second > 0;
  }

  // Counts an admission into `queue` against a supervisor's budget.
  void admitted_into(const std::string& queue)
  {
    if (m_by == HandOffBy::supervisor) {
      --m_budget[queue];
    }
  }

  void admit_in_queue(const ParkedEntry& entry, const std::string& queue)
  {
    seam("before_claim");
    DirLock queue_lock = DirLock::acquire(m_dir, queue_lock_file_name(queue));
    std::size_t index = 0;
    auto slot = free_slot(m_dir, m_reconcile, queue, index);
    if (!slot) {
      m_full.insert(queue);
      return;
    }
    TaskRecord current;
    auto lock = claim_task(m_dir, entry.id, current);
    if (!lock) {
      return;
    }
    write_slot_occupant(slot->fd(), entry.id);
    // The slot and the task are held now: no other hand-off can take
    // either, so the queue's lock goes before the launch (a fork) and the
    // hand-offs waiting for it do not wait for that too.
    queue_lock.unlock();
    admitted_into(queue);
    seam("after_claim");
    m_launch(m_dir,
             AdmittedTask{std::move(*lock), std::move(current), entry, std::move(slot), index},
             m_reconcile);
    seam("after_fork");
  }

  const TaskDir& m_dir;
  Reconciler m_reconcile;
  ParkedLauncher m_launch;
  HandOffBy m_by;
  bool m_changed = false;
  std::set<std::string> m_full; // queues without a free slot, in this pass
  // A supervisor's admissions left, by queue (one per slot it freed and per
  // task it moved into the line); an invocation's are not counted.
  std::map<std::string, int> m_budget;
};

} // namespace

void admit_parked_tasks(const TaskDir& dir, Reconciler reconcile, ParkedLauncher launch,
                        HandOffBy by, const std::optional<std::string>& freed_queue)
{
  if (launch == nullptr) {
    return;
  }
  try {
    HandOff(dir, reconcile, launch, by, freed_queue).run();
  } catch (const std::exception&) {
    // the next hand-off looks again
  }
}

bool queue_has_free_slot(const TaskDir& dir, const std::string& queue, Reconciler reconcile)
{
  std::size_t index = 0;
  try {
    // Slots are tried only under the queue's lock, so that a hand-off never
    // finds one taken by this look; one that holds it is handing off now.
    const auto queue_lock = DirLock::try_acquire(dir, queue_lock_file_name(queue));
    return queue_lock && free_slot(dir, reconcile, queue, index).has_value();
  } catch (const Error&) {
    return true; // cannot tell: a hand-off looks
  }
}

namespace {

// A supervisor's hand-off: releases `slot` (of `queue`) if it holds one,
// then admits parked tasks, filling that slot at most.
void release_and_hand_off(const TaskDir& dir, std::optional<DirLock>& slot,
                          const std::optional<std::string>& queue, Reconciler reconcile,
                          ParkedLauncher launch)
{
  std::optional<std::string> freed_queue;
  if (slot) {
    freed_queue = queue;
    slot.reset();
  }
  admit_parked_tasks(dir, reconcile, launch, HandOffBy::supervisor, freed_queue);
}

} // namespace

void hand_off(const TaskDir& dir, SupervisorPlan& plan)
{
  release_and_hand_off(dir, plan.slot, plan.request.record.queue, plan.reconcile,
                       plan.launch_parked);
}

void fail_admitted_task(const TaskDir& dir, AdmittedTask task, const std::string& reason,
                        Reconciler reconcile, ParkedLauncher launch)
{
  try {
    end_parked(dir, task.lock, task.record, TaskState::failed, reason, nullptr);
  } catch (const Error&) {
    // a full disk: the task stays parked, for a later hand-off
  }
  release_and_hand_off(dir, task.slot, task.record.queue, reconcile, launch);
}

ParkedCancel cancel_parked_tasks(const TaskDir& dir, const std::vector<std::string>& ids,
                                 Reconciler reconcile, ParkedLauncher launch)
{
  ParkedCancel result;
  for (std::size_t from = 0; from < ids.size(); from += k_cancel_batch) {
    std::vector<TaskLock> locks;
    std::vector<std::string> owned;
    for (std::size_t i = from; i < std::min(ids.size(), from + k_cancel_batch); ++i) {
      auto lock = TaskLock::open_existing(dir, ids[i]);
      if (!lock) {
        continue; // removed
      }
      if (lock->read_only() || !lock->try_take_ownership()) {
        result.claimed.push_back(ids[i]);
        continue;
      }
      locks.push_back(std::move(*lock));
      owned.push_back(ids[i]);
    }
    std::vector<TaskLock*> held;
    held.reserve(locks.size());
    for (TaskLock& lock : locks) {
      held.push_back(&lock);
    }
    auto updates = update_records(dir, held, owned, [](TaskRecord& r) {
      if (!is_parked(r)) {
        return Change::keep;
      }
      add_event(r, "cancel_requested");
      finish_record(r, TaskState::cancelled, "cancelled on request while queued");
      return Change::save;
    });
    for (std::size_t k = 0; k < updates.size(); ++k) {
      if (updates[k].status == UpdateStatus::saved) {
        after_parked_end(dir, locks[k], updates[k].record, locks);
        result.ended.push_back(std::move(updates[k].record));
      }
    }
  }
  if (!result.ended.empty()) {
    admit_parked_tasks(dir, reconcile, launch, HandOffBy::invocation);
  }
  return result;
}

} // namespace bgtask
