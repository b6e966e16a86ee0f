// A parked task's supervisor is forked by whoever admits it, often the
// supervisor of the task before it, deep in that one's stack and with its
// heap; forked in place, each generation of a long line of short tasks
// carried the last one's, until a drain of 10,000 slowed to a crawl in
// fork() and the stack overflowed. So the fork execs this program afresh,
// and the new supervisor takes over the claims from inherited descriptors.

#include <bgtask/core/queue_admission.hpp>
#include <bgtask/exec/local/parked_launch.hpp>
#include <bgtask/exec/local/queue_handoff.hpp>
#include <bgtask/exec/local/supervisor.hpp>
#include <bgtask/proc/child_exec.hpp>
#include <bgtask/proc/detached_fork.hpp>
#include <bgtask/proc/standard_streams.hpp>
#include <bgtask/store/queue_settings.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/store/task_files.hpp>
#include <bgtask/util/error.hpp>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace bgtask {

namespace {

// What the supervisor needs beyond the record, from the record and the
// launch context (--env values are never in a record).
LaunchRequest request_of(TaskRecord record, const LaunchContext& context)
{
  LaunchRequest request;
  request.argv = record.command;
  request.env_additions = context.env_additions;
  if (record.timeout_s) {
    request.timeout = Milliseconds(static_cast<std::int64_t>(*record.timeout_s * 1000));
  }
  request.grace = Milliseconds(static_cast<std::int64_t>(record.grace_s * 1000));
  request.max_output = record.options.max_output;
  request.record = std::move(record);
  return request;
}

// Lets `fd` survive the exec.
void keep_across_exec(int fd)
{
  const int flags = ::fcntl(fd, F_GETFD);
  if (flags >= 0) {
    ::fcntl(fd, F_SETFD, flags & ~FD_CLOEXEC);
  }
}

} // namespace

void launch_parked_task(const TaskDir& dir, AdmittedTask task, Reconciler reconcile)
{
  AdmittedHandles handles;
  handles.id = task.record.id;
  handles.lock_fd = task.lock.fd();
  if (task.slot) {
    handles.slot_fd = task.slot->fd();
    handles.slot_index = task.slot_index;
  }
  std::vector<std::string> args{"bgtask", "--dir", dir.path(), "__supervise"};
  for (auto& word : supervise_words(handles)) {
    args.push_back(std::move(word));
  }
  auto argv = to_c_strings(args);
  const bool forked = fork_detached([&] {
    // Neither the streams nor the session of the process that admitted it:
    // a Ctrl-C meant for a `wait` that handed off must not reach it.
    ::setsid();
    redirect_standard_streams_to_null();
    keep_across_exec(handles.lock_fd);
    if (handles.slot_fd) {
      keep_across_exec(*handles.slot_fd);
    }
    ::execve("/proc/self/exe", argv.data(), environ);
    // No /proc: supervise here, on this process's stack.
    try {
      static_cast<void>(supervise_admitted_task(dir, handles, reconcile));
    } catch (...) {
      // never back into the caller's frames: they belong to the parent
    }
    ::_exit(1);
  });
  if (!forked) {
    throw_system("cannot fork the supervisor of a queued task", errno);
  }
}

std::string supervise_admitted_task(const TaskDir& dir, const AdmittedHandles& handles,
                                    Reconciler reconcile)
{
  auto lock = TaskLock::adopt_owned(dir, handles.id, UniqueFd(handles.lock_fd));
  if (!lock) {
    return "descriptor " + std::to_string(handles.lock_fd) + " does not own task " + handles.id;
  }
  auto loaded = load_record(dir, handles.id);
  if (loaded.status != LoadStatus::ok || !is_parked(loaded.record)) {
    return "task " + handles.id + " is not queued";
  }
  TaskRecord& record = loaded.record;
  ParkedEntry entry{record.id, std::nullopt};
  std::optional<DirLock> slot;
  if (handles.slot_fd) {
    if (!record.queue) {
      return "task " + handles.id + " has no queue";
    }
    entry.queue = record.queue;
    slot = DirLock::adopt(dir, queue_slot_file_name(*record.queue, handles.slot_index),
                          UniqueFd(*handles.slot_fd));
    if (!slot) {
      return "descriptor " + std::to_string(*handles.slot_fd) + " does not hold slot " +
             std::to_string(handles.slot_index) + " of queue " + *record.queue;
    }
  }
  // The claims are this process's now: a task that cannot start ends, and
  // the next one gets its slot.
  const auto cannot_start = [&](const std::string& reason) {
    fail_admitted_task(
      dir, AdmittedTask{std::move(*lock), record, entry, std::move(slot), handles.slot_index},
      reason, reconcile, &launch_parked_task);
    return reason;
  };
  auto context = read_parked_context(dir, entry);
  if (!context) {
    return cannot_start(context.error());
  }
  // `start`'s environment, for the supervisor and the command; putenv keeps
  // pointers into `context`, which lives as long as this frame (for ever).
  ::clearenv();
  for (auto& variable : context.value().environment) {
    ::putenv(variable.data());
  }
  const auto output_name = output_file_name(record.id);
  UniqueFd output(::openat(dir.fd(), output_name.c_str(),
                           O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!output) {
    return cannot_start("cannot open " + dir.file_path(output_name) + ": " + std::strerror(errno));
  }
  const mode_t umask = context.value().umask;
  LaunchRequest request = request_of(std::move(record), context.value());
  if (slot) {
    const SlotNaming naming = load_slot_naming(dir, *request.record.queue);
    const std::string name = slot_name(naming, handles.slot_index);
    request.record.slot = name;
    request.env_additions.push_back("BGTASK_SLOT=" + name);
    if (naming.env) {
      request.env_additions.push_back(*naming.env + "=" + name);
    }
  }
  run_supervisor(dir,
                 SupervisorPlan{std::move(request), std::move(*lock), std::move(output), UniqueFd(),
                                UniqueFd(), umask, reconcile, std::nullopt, std::move(slot),
                                std::move(entry), &launch_parked_task, UniqueFd(), std::nullopt});
}

} // namespace bgtask
