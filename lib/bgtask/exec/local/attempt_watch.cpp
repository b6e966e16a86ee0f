#include <bgtask/exec/local/attempt_watch.hpp>
#include <bgtask/exec/local/pause_safety.hpp>
#include <bgtask/exec/local/supervisor_records.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/store/task_files.hpp>
#include <bgtask/util/monotonic_clock.hpp>

#include <algorithm>
#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace bgtask {

namespace {

// How often a running supervisor looks at its record for a cancel request
// that came without a signal (from a `cancel` in another pid namespace,
// which cannot see it): one fstatat while the record is unchanged.
constexpr Milliseconds k_record_check{2000};

// How long the command runs before the supervisor trims its heap.
constexpr Milliseconds k_trim_delay{50};

// How long a pause waits for the stopped tree to settle, and how soon it
// tries again after it found one of bgtask's own processes holding a lock.
constexpr Milliseconds k_pause_settle{200};
constexpr Milliseconds k_pause_retry{20};

// How long a pause lets the lock holders it found run on, alone, to release
// their locks before it continues the whole tree and tries again later.
constexpr Milliseconds k_holder_patience{300};

// Waits (polling every millisecond) until none of `holders` holds a lock of
// `dir`, or until `give_up`.
void wait_for_release(const std::vector<int>& holders, const TaskDir& dir,
                      std::chrono::steady_clock::time_point give_up)
{
  while (!directory_lock_holders(holders, dir).empty() && steady_now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

} // namespace

AttemptWatch::AttemptWatch(const TaskDir& dir, SupervisorPlan& plan, pid_t child, int signal_fd,
                           OutputKeeper* capture, std::function<bool()> output_held,
                           TrimMemory trim)
  : m_dir(dir),
    m_plan(plan),
    m_child(child),
    m_signal_fd(signal_fd),
    m_capture(capture),
    m_status_name(status_file_name(plan.request.record.id)),
    m_removal(dir, plan.request.record.id),
    m_output_held(std::move(output_held)),
    m_tree(plan.request.record.id, child, plan.cgroup ? &*plan.cgroup : nullptr),
    m_record_check_at(steady_now() + k_record_check)
{
  if (trim == TrimMemory::soon) {
    trim_later();
  }
  if (m_capture && m_capture->next_look()) {
    m_keeper_due = steady_now() + *m_capture->next_look();
  }
}

// Reading a record leaves freed heap behind: it goes back a moment later.
void AttemptWatch::trim_later()
{
  if (!m_trim_at) {
    m_trim_at = steady_now() + k_trim_delay;
  }
}

int AttemptWatch::run()
{
  if (m_plan.request.timeout) {
    m_timeout_at = Clock::now() + *m_plan.request.timeout;
  }
  std::optional<int> status;
  Milliseconds hold_recheck{10};
  for (;;) {
    const auto now = steady_now();
    const bool running = m_tree.stopping() == Stopping::no;
    if (running && !m_tree.frozen() && m_timeout_at && now >= *m_timeout_at) {
      m_tree.begin_stop(Stopping::timeout, m_plan.request.grace);
    }
    m_tree.kill_if_due(now);
    if (m_tree.stopping() == Stopping::no && now >= m_record_check_at) {
      m_record_check_at = now + k_record_check;
      if (cancel_requested_in_record()) {
        m_tree.begin_stop(Stopping::cancel, requested_grace());
      }
    }
    stop_if_removed(now);
    if (m_pause_retry_at && now >= *m_pause_retry_at) {
      m_pause_retry_at.reset();
      if (m_tree.stopping() == Stopping::no) {
        follow_pause_request();
      }
    }
    if (status && !still_held()) {
      break;
    }
    const bool timing = m_tree.stopping() == Stopping::no && !m_tree.frozen();
    auto next = m_tree.kill_at() ? m_tree.kill_at() : (timing ? m_timeout_at : std::nullopt);
    if (m_tree.stopping() == Stopping::no) {
      next = std::min({next.value_or(m_record_check_at), m_record_check_at, m_removal.next_look(),
                       m_pause_retry_at.value_or(m_record_check_at)});
    }
    if (status) {
      // Holders of the output that are not our children: no event tells
      // when they close it, so look again, less and less often.
      next = std::min(next.value_or(Clock::time_point::max()), now + hold_recheck);
      hold_recheck = std::min(hold_recheck * 2, Milliseconds(500));
    }
    if (auto exited = wait_for_events(next)) {
      status = exited;
      m_tree.leader_reaped();
    }
  }
  if (m_capture) {
    m_capture->finish(); // what the command wrote before it exited
  }
  if (m_tree.stopping() != Stopping::no) {
    m_tree.kill_remaining_descendants();
  }
  return *status;
}

// After the command's exit: whether processes still hold its output and so
// still belong to the task. Not once the tree was KILLed: what is left of it
// then is killed until none is left (kill_remaining_descendants), and a
// holder elsewhere (given the descriptor) cannot be stopped by us.
bool AttemptWatch::still_held()
{
  return !m_tree.killed() && m_output_held && m_output_held();
}

// One poll for signals and output work until `next`; the command's wait
// status once it has exited.
std::optional<int> AttemptWatch::wait_for_events(std::optional<Clock::time_point> next)
{
  const auto now = steady_now();
  if (m_keeper_due && now >= *m_keeper_due) {
    drain_keeper(now);
  }
  if (m_keeper_due && (!next || *m_keeper_due < *next)) {
    next = m_keeper_due;
  }
  if (m_trim_at && now >= *m_trim_at) {
    m_trim_at.reset();
    ::malloc_trim(0); // what the CLI left on the heap, and a record read since
  } else if (m_trim_at && (!next || *m_trim_at < *next)) {
    next = m_trim_at;
  }
  int wait_ms = -1;
  if (next) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(*next - now);
    wait_ms = static_cast<int>(std::clamp<std::int64_t>(left.count(), 0, 3600000));
  }
  PtyOutput* pty = m_plan.pty ? &*m_plan.pty : nullptr;
  pollfd fds[3] = {{m_signal_fd, POLLIN, 0},
                   {m_capture ? m_capture->fd() : -1, POLLIN, 0},
                   {pty != nullptr ? pty->fd() : -1, POLLIN, 0}};
  if (::poll(fds, 3, wait_ms) <= 0) {
    return std::nullopt;
  }
  if (fds[1].revents != 0) {
    drain_keeper(Clock::now());
  }
  if (fds[2].revents != 0) {
    pty->drain(); // what the command wrote to its terminal, into the output
  }
  return fds[0].revents != 0 ? handle_signals() : std::nullopt;
}

// The output bound's work, and when it is next due on its timer.
void AttemptWatch::drain_keeper(Clock::time_point now)
{
  m_capture->drain();
  const auto look = m_capture->next_look();
  m_keeper_due = look ? std::optional(now + *look) : std::nullopt;
}

std::optional<int> AttemptWatch::handle_signals()
{
  signalfd_siginfo info{};
  std::optional<int> child_status;
  while (::read(m_signal_fd, &info, sizeof(info)) == sizeof(info)) {
    if (info.ssi_signo == SIGCHLD) {
      int status = 0;
      pid_t pid = 0;
      while ((pid = ::waitpid(-1, &status, WNOHANG)) > 0) {
        if (pid == m_child) {
          child_status = status;
        }
      }
    } else if (info.ssi_signo == SIGUSR1) {
      if (m_tree.stopping() == Stopping::no) {
        follow_pause_request();
      }
    } else if (m_tree.stopping() == Stopping::no) {
      m_tree.begin_stop(Stopping::cancel, requested_grace());
    } else if (m_tree.stopping() == Stopping::cancel) {
      m_tree.hasten(requested_grace()); // cancelled again, with a shorter grace
    }
  }
  return child_status;
}

// A task whose directory or record was deleted under it can no longer be
// seen, waited for or cancelled: stop it as a cancel would (no retry
// follows), and the final record, with nowhere to go, is not written.
void AttemptWatch::stop_if_removed(Clock::time_point now)
{
  if (m_tree.stopping() == Stopping::no && m_removal.removed(now)) {
    m_tree.begin_stop(Stopping::cancel, m_plan.request.grace);
  }
}

// True if the record, changed since the last look, holds a cancel request:
// `cancel` writes it before it signals, and a `cancel` that cannot signal
// (another pid namespace) relies on this.
bool AttemptWatch::cancel_requested_in_record()
{
  struct stat st
  {
  };
  if (::fstatat(m_dir.fd(), m_status_name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 ||
      (st.st_ino == m_record_seen.st_ino && st.st_mtim.tv_sec == m_record_seen.st_mtim.tv_sec &&
       st.st_mtim.tv_nsec == m_record_seen.st_mtim.tv_nsec)) {
    return false;
  }
  m_record_seen = st;
  trim_later();
  const auto loaded = load_record(m_dir, m_plan.request.record.id);
  return loaded.status == LoadStatus::ok && loaded.record.cancel_request.has_value();
}

// The grace the record's cancel request asks for, else the task's own.
Milliseconds AttemptWatch::requested_grace()
{
  const auto loaded = load_record(m_dir, m_plan.request.record.id);
  if (loaded.status == LoadStatus::ok && loaded.record.cancel_request) {
    return from_seconds(loaded.record.cancel_request->grace_s);
  }
  return m_plan.request.grace;
}

// `pause` or `resume` changed the record's pause request: stop or continue
// the whole tree, move the timeout by the time spent paused, and record the
// new state (the command waits for it).
void AttemptWatch::follow_pause_request()
{
  trim_later();
  const auto loaded = load_record(m_dir, m_plan.request.record.id);
  if (loaded.status != LoadStatus::ok) {
    return;
  }
  const bool want = loaded.record.pause.requested;
  m_pause_retry_at.reset();
  if (want && !m_tree.frozen()) {
    if (!pause_without_held_locks()) {
      m_pause_retry_at = steady_now() + k_pause_retry;
      return;
    }
    m_paused_at = Clock::now();
  } else if (!want && m_tree.frozen()) {
    m_tree.freeze(false);
    if (m_timeout_at) {
      *m_timeout_at += Clock::now() - m_paused_at;
    }
  }
  const bool paused = m_tree.frozen();
  update_running_record(m_dir, m_plan.lock, m_plan.request.record, [&](TaskRecord& r) {
    if (paused && !r.pause.paused) {
      r.pause.paused = true;
      r.pause.since = now();
      add_event(r, "paused");
    } else if (!paused && r.pause.paused) {
      end_pause(r);
      add_event(r, "resumed");
    }
    r.pause.requested = paused;
  });
}

// Stops the tree, but never one of bgtask's own processes while it holds a
// lock of the directory (a `progress`, a `start` the command runs): it would
// hold it until resumed, and every writer of that record (this supervisor
// too) or every `start --dedupe` would wait for it. Such holders run on
// alone until they released it, then are stopped again; where that cannot
// be done in time (or a cgroup freezes the tree whole) the tree is continued,
// and false: try again a moment later.
bool AttemptWatch::pause_without_held_locks()
{
  const auto give_up = steady_now() + k_holder_patience;
  for (;;) {
    m_tree.freeze(true);
    if (!m_tree.settled(k_pause_settle)) {
      break;
    }
    const auto holders = directory_lock_holders(m_tree.processes(), m_dir);
    if (holders.empty()) {
      return true;
    }
    if (steady_now() >= give_up || !m_tree.continue_only(holders)) {
      break;
    }
    wait_for_release(holders, m_dir, give_up);
  }
  m_tree.freeze(false);
  return false;
}

} // namespace bgtask
