#include <bgtask/exec/local/stop_unanswered.hpp>
#include <bgtask/exec/local/task_liveness.hpp>
#include <bgtask/exec/local/task_processes.hpp>
#include <bgtask/proc/process_info.hpp>
#include <bgtask/proc/session_members.hpp>
#include <bgtask/store/task_lock.hpp>

#include <chrono>
#include <csignal>
#include <set>
#include <thread>

namespace bgtask {

namespace {

// Sends `sig` to the task's processes below its verified supervisor and in
// its session. Descendants are verified twice: their pidfds are opened
// from one scan and used only for pids a second scan still finds, so a pid
// reused in between is never signalled. Returns how many got it.
int signal_task_tree(const TaskRecord& record, int sig)
{
  const int supervisor = record.owner->pid;
  std::vector<std::pair<int, UniqueFd>> opened;
  for (const int pid : supervised_processes(supervisor, record.id)) {
    opened.emplace_back(pid, open_pidfd(pid));
  }
  const auto again = supervised_processes(supervisor, record.id);
  const std::set<int> still(again.begin(), again.end());
  int signalled = 0;
  for (const auto& [pid, pidfd] : opened) {
    if (pidfd && still.count(pid) != 0 && send_signal(pidfd, sig) == 0) {
      ++signalled;
    }
  }
  return signalled +
         signal_session_members(task_session(record), task_session_processes(record), sig);
}

} // namespace

std::optional<std::string> stop_unanswered(const TaskDir& dir, const TaskRecord& record,
                                           Milliseconds grace, CancelAttempt attempt)
{
  if (!record.owner || record.unsupervised) {
    return std::nullopt;
  }
  const auto& owner = *record.owner;
  const std::string waited = format_duration(grace) + " of grace and " +
                             (attempt == CancelAttempt::last ? "10s" : "2s") + " more";
  if (!sees_pid_namespace(owner.pid_ns)) {
    if (attempt != CancelAttempt::last) {
      return std::nullopt;
    }
    return "task " + record.id + " was not cancelled: its supervisor (pid " +
           std::to_string(owner.pid) + " of another pid namespace) did not act on the request in " +
           waited +
           ", and its processes cannot be seen from this pid namespace; the request "
           "stays in its record (cancel it from the supervisor's pid namespace)";
  }
  auto lock = TaskLock::open_existing(dir, record.id);
  const UniqueFd pidfd = open_pidfd(owner.pid);
  const auto stat = read_process_stat(owner.pid);
  if (!lock || !pidfd || !stat || !is_same_process(owner.pid, owner.start_time, owner.pid) ||
      lock->try_take_ownership()) {
    return std::nullopt; // gone: reconciliation sees to the record
  }
  const bool stopped = stat->state == 'T' || stat->state == 't';
  if (!stopped && attempt != CancelAttempt::last) {
    return std::nullopt;
  }
  int signalled = signal_task_tree(record, SIGTERM);
  const auto kill_at = std::chrono::steady_clock::now() + grace;
  while (signalled > 0 && std::chrono::steady_clock::now() < kill_at &&
         signal_task_tree(record, 0) > 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  for (int round = 0; round < 50 && signal_task_tree(record, SIGKILL) > 0; ++round) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const bool left = signal_task_tree(record, 0) > 0;
  return "task " + record.id + " is not recorded cancelled yet: its supervisor (pid " +
         std::to_string(owner.pid) + ") " +
         (stopped ? "is stopped" : "did not act on the request in " + waited) + "; " +
         (signalled == 0 ? "no process of its command was left to stop"
          : left         ? "cancel could not stop every process of its command"
                         : "cancel stopped its command itself") +
         ", and the record stays running until the supervisor runs again";
}

} // namespace bgtask
