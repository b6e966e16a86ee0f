// The wait of a queued task, inside its supervisor.
//
// The queue's order is the order of creation (IDs sort by it). A waiter
// may take a slot only when no older task of its queue is waiting for one,
// so the slots go out first come, first served; the slot locks make the
// taking race-free, and the count of the queue's `running` records keeps a
// command whose supervisor died (unsupervised, holding no lock) counted.
// Records that can no longer matter (final, or of another queue) are read
// once and then ignored, so events of unrelated tasks cost no reloading.
//
// Only the first waiter of a queue (the one whose turn it may be) watches
// the directory, through inotify, and the running tasks: a record renamed
// wakes it alone. A waiter behind it holds no inotify instance and watches
// one process, that of the waiter just ahead of it; each waiter that leaves
// the line (it runs, or ends without running) rings the one behind it (a
// SIGCHLD, which every supervisor takes as "look again"), and one that dies
// wakes it through its pidfd. So a queue of N waiters costs O(N) wake-ups
// per task that finishes, not O(N^2), and one inotify instance. A safety
// re-check runs every 60 s; it polls (50 ms to 1 s backoff) only where
// inotify is missing or while a task it waits behind has no process to
// watch (an unsupervised command whose leader exited before the rest of its
// group). Records it looks at are reconciled, so a queued task whose
// supervisor died turns `lost` and stops holding the queue up; a dead
// supervisor never held a slot.

#include <bgtask/core/queue_admission.hpp>
#include <bgtask/exec/local/queue_wait.hpp>
#include <bgtask/exec/local/supervisor_records.hpp>
#include <bgtask/exec/local/task_processes.hpp>
#include <bgtask/exec/task_watcher.hpp>
#include <bgtask/proc/process_info.hpp>
#include <bgtask/store/queue_settings.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/record_transaction.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/store/task_files.hpp>
#include <bgtask/util/error.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <functional>
#include <map>
#include <set>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

namespace bgtask {

namespace {

constexpr Milliseconds k_safety_recheck{60000};

enum class Phase { after, slot };

// What the waiter knows about another task of the directory.
struct Known
{
  bool settled = false;             // final or of another queue: never matters again
  std::optional<TaskRecord> record; // the current record of an unsettled task
};

class QueueWait
{
public:
  explicit QueueWait(const QueuedTask& task)
    : m_dir(task.dir),
      m_reconcile(task.reconcile),
      m_lock(task.lock),
      m_record(task.record),
      m_signal_fd(task.signal_fd),
      // No inotify instance for a slot until it is first in line: a waiter
      // started behind others never opens one.
      m_watcher(task.dir, WatcherOptions{WatchOutput::no, k_safety_recheck, WatchEvents::none})
  {
    if (m_record.queue) {
      m_settings_name = queue_settings_file_name(*m_record.queue);
    }
    m_watcher.filter_events(
      [this](std::string_view name, std::uint32_t mask) { return relevant_event(name, mask); });
    m_watcher.watch_fd(m_signal_fd, [this] { return read_signals(); });
  }

  Turn run()
  {
    Turn turn = next_turn();
    turn.retired_watch = m_watcher.release_events();
    return turn;
  }

private:
  Turn next_turn()
  {
    m_phase = m_record.after.empty() ? Phase::slot : Phase::after;
    if (m_phase == Phase::after) {
      m_watcher.watch_events(TaskWatcher::Events::directory); // dependencies' renames wake it
    }
    for (;;) {
      if (task_removed(m_dir, status_file_name(m_record.id))) {
        Turn removed; // nothing is left to run or to record
        removed.outcome = Turn::Outcome::removed;
        return removed;
      }
      if (m_cancelled) {
        end(TaskState::cancelled, "cancelled on request while queued");
      }
      if (m_phase == Phase::after && !m_end && dependencies_done()) {
        if (!m_record.queue) {
          return Turn{};
        }
        enter_slot_phase();
      }
      if (m_end) {
        return std::move(*m_end);
      }
      if (m_phase == Phase::slot) {
        if (auto slot = try_take_slot()) {
          Turn turn;
          turn.slot = std::move(slot);
          return turn;
        }
      }
      sleep();
    }
  }

  // Ends the wait: the task will not run.
  void end(TaskState state, std::string reason)
  {
    if (!m_end) {
      m_end.emplace();
      m_end->outcome = Turn::Outcome::ended;
      m_end->state = state;
      m_end->reason = std::move(reason);
    }
  }

  // True once every dependency succeeded; ends the wait if one did not.
  bool dependencies_done()
  {
    bool done = true;
    for (const auto& id : m_record.after) {
      auto loaded = load_record(m_dir, id);
      if (loaded.status == LoadStatus::missing) {
        end(TaskState::failed, "dependency " + id + " no longer exists");
        return false;
      }
      if (loaded.status == LoadStatus::corrupt) {
        end(TaskState::failed, "dependency " + id + " has a corrupt record: " + loaded.reason);
        return false;
      }
      const TaskRecord dependency = m_reconcile(m_dir, std::move(loaded.record));
      if (!is_final(dependency.state)) {
        done = false;
        m_watcher.watch_task(dependency);
      } else if (dependency.state != TaskState::succeeded) {
        end(TaskState::failed,
            "dependency " + id + " did not succeed: " + outcome_text(dependency));
        return false;
      }
    }
    return done;
  }

  void enter_slot_phase()
  {
    m_phase = Phase::slot;
    m_rescan = true;
    // Others see it later, at the running record, if it cannot be written.
    update_running_record(m_dir, m_lock, m_record, [&](TaskRecord& r) {
      r.waiting_for = WaitingFor::slot;
      add_event(r, "waiting", "dependencies succeeded; waiting for a slot in queue " + *r.queue);
    });
  }

  // Brings what is known about the queue's tasks up to date: the records
  // that can decide this waiter's turn (older ones and running ones) and
  // those events named. A younger waiter of the queue is behind this one
  // and cannot run before it, so it is not read again.
  void refresh_queue()
  {
    if (m_rescan || (!m_behind && !m_watcher.event_driven())) {
      for (const auto& id : scan_task_ids(m_dir)) {
        if (id != m_record.id && m_known.find(id) == m_known.end()) {
          m_dirty.insert(id);
        }
      }
      m_rescan = false;
    }
    std::set<std::string> to_load;
    to_load.swap(m_dirty);
    for (const auto& [id, known] : m_known) {
      const bool behind_this =
        id > m_record.id && known.record && known.record->state == TaskState::queued;
      if (!known.settled && !behind_this) {
        to_load.insert(id);
      }
    }
    for (const auto& id : to_load) {
      auto& known = m_known[id];
      if (known.settled) {
        continue;
      }
      auto loaded = load_record(m_dir, id);
      if (loaded.status == LoadStatus::missing) {
        m_known.erase(id);
        continue;
      }
      known.record.reset();
      if (loaded.status != LoadStatus::ok) {
        continue; // corrupt: read again next time, counted as nothing
      }
      if (loaded.record.queue != m_record.queue || is_final(loaded.record.state)) {
        known.settled = true;
        continue;
      }
      TaskRecord current = m_reconcile(m_dir, std::move(loaded.record));
      if (is_final(current.state)) {
        known.settled = true;
      } else {
        known.record = std::move(current);
      }
    }
  }

  std::optional<DirLock> try_take_slot()
  {
    std::vector<const TaskRecord*> others;
    const TaskRecord* just_ahead = nullptr; // the youngest waiter ahead
    for (;;) {
      refresh_queue();
      others.clear();
      just_ahead = nullptr;
      for (const auto& [id, known] : m_known) {
        if (!known.record) {
          continue;
        }
        const TaskRecord& other = *known.record;
        others.push_back(&other);
        if (waits_ahead(other, m_record.id)) {
          just_ahead = &other; // m_known is in ID order
        }
      }
      // First in line: a finishing task or a change of the slot count may
      // let it run. Behind: only the waiter ahead leaving the line may.
      m_behind = just_ahead != nullptr;
      if (!m_watcher.watch_events(m_behind ? TaskWatcher::Events::none
                                           : TaskWatcher::Events::directory)) {
        break;
      }
      // A watch opened at the first look missed the tasks made since the
      // scan above (an older one among them would be ahead): scan again.
      // Later, what the waiter does not know is younger and cannot be
      // ahead of it.
      m_rescan = !m_looked;
    }
    m_looked = true;
    if (just_ahead) {
      m_watcher.watch_task(*just_ahead);
      return std::nullopt;
    }
    for (const TaskRecord* other : others) {
      if (other->state == TaskState::running) {
        m_watcher.watch_task(*other);
      }
    }
    const std::size_t slots = slots_of(load_queue_settings(m_dir, *m_record.queue));
    if (!may_take_slot(m_record.id, others, slots)) {
      return std::nullopt;
    }
    for (std::size_t slot = 0; slot < slots; ++slot) {
      try {
        if (auto lock = DirLock::try_acquire(m_dir, queue_slot_file_name(*m_record.queue, slot))) {
          return lock;
        }
      } catch (const Error&) {
        // an unusable slot file: try the next slot
      }
    }
    return std::nullopt;
  }

  // Sleeps until something the waiter depends on may have changed. After
  // the safety re-check, the directory is scanned again (events may have
  // been missed).
  void sleep()
  {
    if (m_watcher.wait(std::nullopt) == Wake::safety_poll && !m_behind) {
      m_rescan = true;
    }
  }

  // Reads pending signals; true if one asks to cancel (anything but SIGCHLD
  // and SIGUSR1, which asks a running task to pause or resume) or to look
  // again (SIGCHLD: a waiter has no child; the one ahead rang).
  bool read_signals()
  {
    bool rung = false;
    signalfd_siginfo info{};
    while (::read(m_signal_fd, &info, sizeof(info)) == sizeof(info)) {
      if (info.ssi_signo == SIGCHLD) {
        rung = true;
      } else if (info.ssi_signo != SIGUSR1) {
        m_cancelled = true;
      }
    }
    return m_cancelled || rung;
  }

  bool relevant_id(const std::string& id) const
  {
    if (id == m_record.id) {
      return false;
    }
    if (m_phase == Phase::after) {
      return std::find(m_record.after.begin(), m_record.after.end(), id) != m_record.after.end();
    }
    const auto it = m_known.find(id);
    return it == m_known.end() || !it->second.settled;
  }

  // True if an inotify event may matter to this waiter; notes the records
  // to read again.
  bool relevant_event(std::string_view name, std::uint32_t mask)
  {
    if ((mask & (IN_Q_OVERFLOW | IN_DELETE_SELF | IN_IGNORED)) != 0) {
      m_rescan = true;
      return true; // lost events, or the directory itself went
    }
    if (m_phase == Phase::slot && name == m_settings_name) {
      return true;
    }
    const auto file = parse_task_file_name(name);
    if (!file || file->kind != TaskFileKind::status) {
      return false;
    }
    if (file->id == m_record.id) {
      return (mask & IN_DELETE) != 0; // the own record was deleted
    }
    if (!relevant_id(file->id)) {
      return false;
    }
    if (m_phase == Phase::slot) {
      m_dirty.insert(file->id);
    }
    return true;
  }

  const TaskDir& m_dir;
  Reconciler m_reconcile;
  TaskLock& m_lock;
  TaskRecord& m_record;
  int m_signal_fd;
  TaskWatcher m_watcher;
  std::string m_settings_name;
  Phase m_phase = Phase::after;
  bool m_cancelled = false;
  std::optional<Turn> m_end; // why the task will not run
  bool m_rescan = true;
  bool m_behind = false; // another waiter is ahead in the line
  bool m_looked = false; // the first look at the queue is done
  std::set<std::string> m_dirty;
  std::map<std::string, Known> m_known;
};

} // namespace

void ring_next_waiter(const TaskDir& dir, const TaskRecord& record)
{
  if (!record.queue) {
    return;
  }
  std::vector<std::string> ids;
  try {
    ids = scan_task_ids(dir);
  } catch (const Error&) {
    return; // the waiter behind wakes on its safety poll
  }
  for (auto it = std::upper_bound(ids.begin(), ids.end(), record.id); it != ids.end(); ++it) {
    const auto loaded = load_record(dir, *it);
    if (loaded.status != LoadStatus::ok || loaded.record.queue != record.queue ||
        loaded.record.state != TaskState::queued ||
        loaded.record.waiting_for == WaitingFor::after) {
      continue;
    }
    const auto& owner = loaded.record.owner;
    // A supervisor of this boot, whatever the host is called now (the name
    // may have changed since it wrote its record); not one of an earlier
    // boot, whose pid and start time may be another process's now.
    const bool here = owner && is_this_boot(owner->boot_id);
    if (const auto fd = here ? open_watched_process(loaded.record) : UniqueFd()) {
      send_signal(fd, SIGCHLD);
      return;
    }
    // Its supervisor is gone: whoever waits behind it is next.
  }
}

bool must_wait_for_turn(const TaskRecord& record)
{
  return record.queue.has_value() || !record.after.empty();
}

void save_queued_record(const TaskDir& dir, TaskLock& lock, TaskRecord& record)
{
  record.owner = this_supervisor_identity();
  record.state = TaskState::queued;
  record.waiting_for = record.after.empty() ? WaitingFor::slot : WaitingFor::after;
  add_event(record, "queued",
            record.after.empty() ? "waiting for a slot in queue " + *record.queue
                                 : "waiting for " + std::to_string(record.after.size()) +
                                     (record.after.size() == 1 ? " task" : " tasks"));
  create_record(dir, lock, record);
}

Turn wait_for_turn(const QueuedTask& task)
{
  return QueueWait(task).run();
}

void save_started_record(const TaskDir& dir, TaskLock& lock, TaskRecord& record)
{
  // Under the update lock like every other write, so a concurrent cleanup
  // never takes the temp of this record for an abandoned one.
  if (!record.waiting_for) {
    create_record(dir, lock, record);
    return;
  }
  const auto update = update_record(
    dir, lock, record.id,
    [&](TaskRecord& current) {
      // What others wrote while it was queued stays; the rest is new.
      TaskRecord next = record;
      next.generation = current.generation;
      next.cancel_request = current.cancel_request;
      next.progress = current.progress;
      next.events = std::move(current.events);
      if (next.events.empty() || next.events.back().kind != "started") {
        add_event(next, "started");
      }
      next.waiting_for.reset();
      current = std::move(next);
      return Change::save;
    },
    &record);
  if (update.status != UpdateStatus::saved) {
    throw Error(ExitCode::failure, "the record of task " + record.id + " was removed");
  }
  record = update.record;
}

} // namespace bgtask
