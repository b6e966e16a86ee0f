#include <bgtask/core/queue_admission.hpp>
#include <bgtask/exec/local/local_executor.hpp>
#include <bgtask/exec/local/local_reconcile.hpp>
#include <bgtask/exec/local/parked_launch.hpp>
#include <bgtask/exec/local/queue_handoff.hpp>
#include <bgtask/exec/local/stop_tree.hpp>
#include <bgtask/exec/local/stop_unanswered.hpp>
#include <bgtask/exec/local/supervisor.hpp>
#include <bgtask/exec/local/task_liveness.hpp>
#include <bgtask/proc/caller_umask.hpp>
#include <bgtask/proc/cgroup.hpp>
#include <bgtask/proc/process_info.hpp>
#include <bgtask/store/parked_tasks.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/record_transaction.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/store/task_files.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/fd_io.hpp>
#include <bgtask/util/file_locks.hpp>
#include <bgtask/util/utf8.hpp>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

namespace bgtask {

namespace {

// The most of the supervisor's launch report ("CODE\nREASON") that is read.
constexpr std::size_t k_max_report_bytes = 64 * 1024;

// The supervisor's answer on `report_fd`: "0\n" once the running record is
// durable, just before the command is released (or once the task is
// queued), then, only if the command's exec failed, "CODE\nREASON" once the
// final record is written; else "CODE\nREASON" alone. `notice_fd` ends when
// the command exec'd, or when no command will (the supervisor answered
// alone); a byte on it first says the exec failed. The notice is read first:
// `start` sleeps through the "0" and wakes once, at the exec, so the command
// about to exec has the CPUs to itself. nullopt if the supervisor died
// without an answer.
std::optional<LaunchResult> read_launch_report(int report_fd, int notice_fd)
{
  char byte = 0;
  ssize_t notice = 0;
  while ((notice = ::read(notice_fd, &byte, 1)) < 0 && errno == EINTR) {
  }
  std::string report;
  char buffer[512];
  while (report.find('\n') == std::string::npos && report.size() < k_max_report_bytes) {
    const ssize_t got = ::read(report_fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) {
      continue;
    }
    if (got <= 0) {
      break;
    }
    report.append(buffer, static_cast<std::size_t>(got));
  }
  if (report.starts_with("0\n")) {
    if (notice <= 0) {
      return LaunchResult{};
    }
    report.erase(0, 2);
  }
  std::string rest;
  static_cast<void>(read_all(report_fd, rest, k_max_report_bytes));
  report += rest;
  const auto newline = report.find('\n');
  if (newline == std::string::npos) {
    return std::nullopt;
  }
  LaunchResult result;
  result.exit_code = std::atoi(report.substr(0, newline).c_str());
  result.error = report.substr(newline + 1);
  return result;
}

// The launch context of a task started by this process.
LaunchContext this_launch_context(const LaunchRequest& request)
{
  LaunchContext context;
  context.umask = caller_umask();
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    context.environment.emplace_back(*entry);
  }
  context.env_additions = request.env_additions;
  return context;
}

} // namespace

void LocalExecutor::check(const StartOptions& options) const
{
  const auto& slurm = options.slurm;
  if (slurm.partition || slurm.time_limit || !slurm.args.empty()) {
    throw_usage("--partition, --slurm-time and --slurm-arg need --executor slurm");
  }
  if (slurm.array && slurm.array->limit) {
    throw_usage("--array's %N needs --executor slurm; to run at most N at once here, give "
                "--queue Q --slots N");
  }
  const auto& limits = options.limits;
  if (limits.any()) {
    const auto why =
      cgroup_unavailable_reason(CgroupLimits{limits.memory_max, limits.pids_max, limits.cpu_max});
    if (!why.empty()) {
      throw Error(ExitCode::limits_unavailable,
                  "cannot enforce --memory-max, --pids-max or --cpu-max here: " + why +
                    " (rlimits are no substitute: they bound each process, not the tree)");
    }
  }
}

LaunchResult LocalExecutor::park(const TaskDir& dir, TaskLock lock, LaunchRequest request)
{
  TaskRecord& record = request.record;
  const auto output_name = output_file_name(record.id);
  {
    UniqueFd output(::openat(dir.fd(), output_name.c_str(),
                             O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (!output) {
      const int err = errno;
      ::unlinkat(dir.fd(), lock_file_name(record.id).c_str(), 0);
      throw_system("cannot create " + dir.file_path(output_name), err);
    }
  }
  record.state = TaskState::queued;
  record.owner.reset();
  record.waiting_for = first_wait(record);
  add_event(record, "queued", waiting_text(record));
  const ParkedEntry entry{record.id, record.waiting_for == WaitingFor::slot
                                       ? record.queue
                                       : std::optional<std::string>()};
  try {
    park_tasks(dir, {entry}, this_launch_context(request));
  } catch (const Error&) {
    remove_unrecorded_task_files(dir, record.id);
    throw;
  }
  try {
    create_record(dir, lock, record);
  } catch (const Error&) {
    unpark_task(dir, record.id, record.queue);
    remove_unrecorded_task_files(dir, record.id);
    throw;
  }
  { // the claim ends here: a hand-off may take the task now
    const TaskLock released = std::move(lock);
  }
  admit_parked_tasks(dir, m_reconcile, &launch_parked_task, HandOffBy::invocation);
  return LaunchResult{};
}

void LocalExecutor::admit(const TaskDir& dir)
{
  admit_parked_tasks(dir, m_reconcile, &launch_parked_task, HandOffBy::invocation);
}

void LocalExecutor::admit_for(const TaskDir& dir, const std::vector<TaskRecord>& records)
{
  std::set<std::string> queues;
  for (const auto& record : records) {
    if (!is_parked(record)) {
      continue;
    }
    if (record.waiting_for != WaitingFor::slot || !record.queue) {
      admit(dir);
      return;
    }
    queues.insert(*record.queue);
  }
  for (const auto& queue : queues) {
    if (queue_has_free_slot(dir, queue, m_reconcile)) {
      admit(dir);
      return;
    }
  }
}

LaunchResult LocalExecutor::launch(const TaskDir& dir, TaskLock lock, LaunchRequest request)
{
  if (must_wait_for_turn(request.record)) {
    return park(dir, std::move(lock), std::move(request));
  }
  const std::string id = request.record.id;
  // Whatever fails before the supervisor reports leaves no files behind.
  const auto fail = [&](const std::string& message, int err) {
    remove_unrecorded_task_files(dir, id);
    throw_system(message, err);
  };
  const auto output_name = output_file_name(id);
  UniqueFd output(::openat(dir.fd(), output_name.c_str(),
                           O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!output) {
    const int err = errno;
    ::unlinkat(dir.fd(), lock_file_name(id).c_str(), 0);
    throw_system("cannot create " + dir.file_path(output_name), err);
  }
  UniqueFd report_read;
  UniqueFd report_write;
  UniqueFd notice_read;
  UniqueFd notice_write;
  if (!make_pipe(report_read, report_write) || !make_pipe(notice_read, notice_write)) {
    fail("cannot create a pipe", errno);
  }

  // One fork: `start` exits right after the report, and the supervisor
  // (which detaches itself with setsid) is then re-parented like any orphan.
  const pid_t supervisor = ::fork();
  if (supervisor < 0) {
    fail("cannot fork", errno);
  }
  if (supervisor == 0) {
    report_read.close();
    notice_read.close();
    // Before the supervisor puts its own stdio on /dev/null.
    UniqueFd caller_stderr(
      request.caller_stderr >= 0 ? ::fcntl(request.caller_stderr, F_DUPFD_CLOEXEC, 3) : -1);
    SupervisorPlan plan{std::move(request),
                        std::move(lock),
                        std::move(output),
                        std::move(report_write),
                        std::move(notice_write),
                        caller_umask(),
                        m_reconcile,
                        std::nullopt,
                        std::nullopt,
                        std::nullopt,
                        &launch_parked_task,
                        std::move(caller_stderr),
                        std::nullopt};
    run_supervisor(dir, std::move(plan));
  }
  report_write.close();
  notice_write.close();
  output.close();
  auto report = read_launch_report(report_read.get(), notice_read.get());
  if (!report) {
    remove_unrecorded_task_files(dir, id);
    throw Error(ExitCode::failure, "the supervisor of task " + id + " exited before starting it");
  }
  return *report;
}

void LocalExecutor::reconcile(const TaskDir& dir, std::vector<TaskRecord>& records)
{
  for (auto& record : records) {
    record = reconcile_local_record(dir, std::move(record));
  }
}

namespace {

// Asks a task's live supervisor to cancel: records the request, then
// signals the supervisor, verified by pidfd, start time and its lock.
void request_cancel(const TaskDir& dir, const TaskRecord& record, Milliseconds grace)
{
  if (!record.owner) {
    return;
  }
  // Failing to reach the supervisor is an error, never a silent no-op.
  auto lock = TaskLock::open_existing(dir, record.id);
  if (!lock) {
    throw_system("cannot cancel task " + record.id + ": cannot open its lock", errno);
  }
  const auto update = update_record(dir, *lock, record.id, [&](TaskRecord& current) {
    if (is_final(current.state)) {
      return Change::keep;
    }
    current.cancel_request = CancelRequest{now(), to_seconds(grace)};
    add_event(current, "cancel_requested");
    return Change::save;
  });
  if (update.status == UpdateStatus::gone || update.status == UpdateStatus::corrupt) {
    throw Error(ExitCode::failure, "cannot cancel task " + record.id + ": " +
                                     (update.status == UpdateStatus::gone
                                        ? std::string("it was removed")
                                        : "cannot read its record: " + update.reason));
  }
  if (update.status == UpdateStatus::kept) {
    return; // final already
  }
  signal_supervisor(record, *lock, SIGTERM);
}

// Stops a task whose supervisor is gone and records it as cancelled.
void cancel_orphan(const TaskDir& dir, const TaskRecord& record, Milliseconds grace)
{
  stop_orphaned(record, grace);
  auto lock = TaskLock::open_existing(dir, record.id);
  if (!lock || !lock->try_take_ownership()) {
    return; // removed meanwhile, or someone else is finishing it
  }
  update_record(dir, *lock, record.id, [](TaskRecord& current) {
    if (is_final(current.state)) {
      return Change::keep;
    }
    add_event(current, "cancel_requested");
    finish_record(current, TaskState::cancelled, "cancelled on request (supervisor was gone)");
    return Change::save;
  });
}

} // namespace

namespace {

// Cancels parked tasks together; one that a hand-off is starting is
// cancelled once it runs (a claim lasts milliseconds: it is waited for up
// to k_lock_patience). Returns the final records written together.
std::vector<TaskRecord>
cancel_parked(const TaskDir& dir, const std::vector<std::string>& ids,
              const std::function<Milliseconds(const TaskRecord&)>& grace_of, Reconciler reconcile)
{
  auto cancelled = cancel_parked_tasks(dir, ids, reconcile, &launch_parked_task);
  for (const auto& id : cancelled.claimed) {
    const auto give_up = std::chrono::steady_clock::now() + k_lock_patience;
    for (;;) {
      ::usleep(5000);
      auto loaded = load_record(dir, id);
      if (loaded.status != LoadStatus::ok || is_final(loaded.record.state)) {
        break;
      }
      if (!is_parked(loaded.record)) {
        request_cancel(dir, loaded.record, grace_of(loaded.record));
        break;
      }
      auto again = cancel_parked_tasks(dir, {id}, reconcile, &launch_parked_task);
      if (again.claimed.empty()) {
        std::move(again.ended.begin(), again.ended.end(), std::back_inserter(cancelled.ended));
        break;
      }
      if (std::chrono::steady_clock::now() > give_up) {
        throw Error(ExitCode::failure, "cannot cancel task " + id +
                                         ": another process (its start, or another cancel) "
                                         "held it for more than 5 s");
      }
    }
  }
  return std::move(cancelled.ended);
}

} // namespace

std::optional<std::string> LocalExecutor::cancel(const TaskDir& dir, const TaskRecord& record,
                                                 Milliseconds grace, CancelAttempt attempt)
{
  if (is_parked(record)) {
    if (attempt == CancelAttempt::first) {
      cancel_parked(
        dir, {record.id}, [grace](const TaskRecord&) { return grace; }, m_reconcile);
    }
    return std::nullopt;
  }
  if (attempt == CancelAttempt::overdue || attempt == CancelAttempt::last) {
    return stop_unanswered(dir, record, grace, attempt);
  }
  if (record.unsupervised) {
    cancel_orphan(dir, record, grace);
  } else if (attempt == CancelAttempt::first) {
    request_cancel(dir, record, grace);
  }
  return std::nullopt;
}

std::vector<TaskRecord>
LocalExecutor::cancel_all(const TaskDir& dir, const std::vector<const TaskRecord*>& records,
                          const std::function<Milliseconds(const TaskRecord&)>& grace_of)
{
  std::vector<std::string> parked;
  for (const TaskRecord* record : records) {
    if (is_parked(*record)) {
      parked.push_back(record->id);
    }
  }
  std::vector<TaskRecord> ended;
  if (!parked.empty()) {
    ended = cancel_parked(dir, parked, grace_of, m_reconcile);
  }
  for (const TaskRecord* record : records) {
    if (!is_parked(*record)) {
      cancel(dir, *record, grace_of(*record), CancelAttempt::first);
    }
  }
  return ended;
}

} // namespace bgtask
