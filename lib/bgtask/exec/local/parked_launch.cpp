#include <bgtask/exec/local/parked_launch.hpp>
#include <bgtask/exec/local/supervisor.hpp>
#include <bgtask/proc/detached_fork.hpp>
#include <bgtask/proc/fresh_stack.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/store/task_files.hpp>
#include <bgtask/util/error.hpp>

#include <cerrno>
#include <cstdlib>
#include <fcntl.h>

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

// Replaces this process's environment with `environment`, whose strings
// must outlive it.
void adopt_environment(const std::vector<std::string>& environment)
{
  ::clearenv();
  for (const auto& entry : environment) {
    ::putenv(const_cast<char*>(entry.c_str()));
  }
}

// What the forked supervisor runs with, on the heap: the stack it was
// forked on is unmapped by the supervisor it forks in turn.
struct ForkedSupervisor
{
  const TaskDir* dir;
  SupervisorPlan plan;
  std::vector<std::string> environment; // putenv keeps pointers into it
};

constexpr std::size_t k_supervisor_stack = std::size_t{8} << 20;

ForkedSupervisor* g_forked = nullptr; // set in the forked process alone

void run_forked_supervisor()
{
  run_supervisor(*g_forked->dir, std::move(g_forked->plan));
}

} // namespace

void launch_parked_task(const TaskDir& dir, AdmittedTask task, Reconciler reconcile)
{
  auto context = read_parked_context(dir, task.entry);
  if (!context) {
    throw Error(ExitCode::failure, context.error());
  }
  const auto output_name = output_file_name(task.record.id);
  UniqueFd output(::openat(dir.fd(), output_name.c_str(),
                           O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!output) {
    throw_system("cannot open " + dir.file_path(output_name), errno);
  }
  const mode_t umask = context.value().umask;
  LaunchRequest request = request_of(std::move(task.record), context.value());
  if (task.slot_name) {
    request.record.slot = task.slot_name;
    request.env_additions.push_back("BGTASK_SLOT=" + *task.slot_name);
    if (task.slot_env) {
      request.env_additions.push_back(*task.slot_env + "=" + *task.slot_name);
    }
  }
  SupervisorPlan plan{std::move(request),
                      std::move(task.lock),
                      std::move(output),
                      UniqueFd(),
                      UniqueFd(),
                      umask,
                      reconcile,
                      std::nullopt,
                      std::move(task.slot),
                      std::move(task.entry),
                      &launch_parked_task,
                      UniqueFd(),
                      std::nullopt};
  const auto& environment = context.value().environment;
  const bool forked = fork_detached([&] {
    // The supervisor that hands off forks this one deep in its own stack:
    // on that stack, a long line of short tasks (each supervisor forked by
    // the last) overflowed it. It runs on a stack of its own.
    g_forked = new ForkedSupervisor{&dir, std::move(plan), environment};
    adopt_environment(g_forked->environment);
    run_on_fresh_stack(&run_forked_supervisor, k_supervisor_stack);
    run_forked_supervisor(); // no stack could be mapped: this one, then
  });
  if (!forked) {
    throw_system("cannot fork the supervisor of a queued task", errno);
  }
}

} // namespace bgtask
