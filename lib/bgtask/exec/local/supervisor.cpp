// The supervisor: one process per task, forked by `start`.
//
// Its life in phases: detach from the CLI; prepare (room for the final
// record, the task's cgroup, the wait for a turn, the output bound); launch
// each attempt (fork the command, argv and environment built first, which
// blocks on a "go" pipe; write the running record naming both processes;
// release the command and tell `start`, which learns from a CLOEXEC pipe
// the command holds that it exec'd); supervise (an exec that failed is
// known once the command has exited: it wrote why on another CLOEXEC pipe,
// and `start` hears the reason then); finish (final record, exit hook). A
// supervisor killed before "go" leaves a command that exits 127 without
// running anything, and a record (if any) that reconciles to `lost`. It is
// the CLI's image after a fork: nothing may unwind out of it, so the phases
// run under one last-resort catch that records the reason and exits.

#include <bgtask/exec/local/attempt_runner.hpp>
#include <bgtask/exec/local/exit_hook.hpp>
#include <bgtask/exec/local/output_cutter.hpp>
#include <bgtask/exec/local/output_trimmer.hpp>
#include <bgtask/exec/local/queue_handoff.hpp>
#include <bgtask/exec/local/supervisor.hpp>
#include <bgtask/exec/local/supervisor_records.hpp>
#include <bgtask/proc/child_exec.hpp>
#include <bgtask/proc/standard_streams.hpp>
#include <bgtask/store/dir_lock.hpp>
#include <bgtask/store/outcome_reserve.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/fd_io.hpp>
#include <bgtask/util/test_seams.hpp>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <malloc.h>
#include <memory>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace bgtask {

namespace {

CgroupLimits cgroup_limits(const ResourceLimits& limits)
{
  return CgroupLimits{limits.memory_max, limits.pids_max, limits.cpu_max};
}

// Whether `pid` is a child of this process that was not reaped yet (so its
// pid, and the group it leads, cannot have been reused).
bool is_own_child(pid_t pid)
{
  siginfo_t info{};
  return ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0;
}

// What the phases share, and what the last-resort handler needs to know.
struct SupervisorRun
{
  const TaskDir& dir;
  SupervisorPlan& plan;
  UniqueFd signal_fd;
  std::unique_ptr<OutputKeeper> keeper; // the output bound, if any

  TaskRecord& record() { return plan.request.record; }

  // Sends `start` its answer ("CODE\nMESSAGE"; empty: no more than what
  // was written already) and closes the report; only the first one counts.
  void report(const std::string& line)
  {
    if (plan.report) {
      static_cast<void>(write_all(plan.report.get(), line));
      plan.report.close();
    }
    plan.start_notice.close();
  }
  bool reported() const { return !plan.report; }
};

// Writes the final record of a task that ends before its command ran (an
// admitted parked task that cannot start), hands off, runs its hook and
// exits.
[[noreturn]] void end_without_running(SupervisorRun& run, TaskState state,
                                      const std::string& reason)
{
  save_final_record(
    run.dir, run.plan.lock, run.record(), [&](TaskRecord& r) { finish_record(r, state, reason); },
    k_final_record_attempts);
  unpark_task(run.dir, run.record().id, run.record().queue);
  hand_off(run.dir, run.plan);
  run_exit_hook(run.dir, run.plan.lock, run.record());
  ::_exit(0);
}

// Ends a start that could not begin: `start` hears why, and no file of a
// task without a record stays behind. An admitted parked task has a record
// and no `start` waiting: it ends failed.
[[noreturn]] void refuse_start(SupervisorRun& run, const std::string& reason)
{
  if (run.plan.parked) {
    end_without_running(run, TaskState::failed, reason);
  }
  remove_unrecorded_task_files(run.dir, run.record().id);
  run.report("1\n" + reason);
  ::_exit(1);
}

// Phase 1: a new session, /dev/null for stdio, no inherited descriptor but
// the plan's, a subreaper, and the signals it handles on a signalfd.
void detach(SupervisorRun& run)
{
  ::setsid();
  if (test_seam(TestSeam::stop_supervisor) != nullptr) {
    // Stops here so a crash test can attach a tracer to the supervisor alone.
    clear_test_seam(TestSeam::stop_supervisor);
    ::raise(SIGSTOP);
  }
  redirect_standard_streams_to_null();
  auto& plan = run.plan;
  close_descriptors_except({run.dir.fd(), plan.lock.fd(), plan.output.get(), plan.report.get(),
                            plan.start_notice.get(), plan.slot ? plan.slot->fd() : -1,
                            plan.caller_stderr.get()});
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  ::signal(SIGPIPE, SIG_IGN);
  sigset_t handled;
  sigemptyset(&handled);
  for (const int sig : {SIGCHLD, SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1}) {
    sigaddset(&handled, sig);
  }
  ::sigprocmask(SIG_BLOCK, &handled, nullptr);
  run.signal_fd = UniqueFd(::signalfd(-1, &handled, SFD_CLOEXEC | SFD_NONBLOCK));
}

// The output bound of --max-output. The command writes ID.output itself (so
// the supervisor's death never ends it) and the supervisor punches out its
// middle; where the file system cannot punch holes, it cuts the file back
// to its head. The record says which.
void prepare_output_bound(SupervisorRun& run)
{
  auto& plan = run.plan;
  if (!plan.request.max_output) {
    return;
  }
  if (auto trimmer = OutputTrimmer::create(plan.output.get(), *plan.request.max_output)) {
    run.keeper = std::make_unique<OutputTrimmer>(std::move(*trimmer));
    run.record().output.retention = OutputRetention::head_and_tail;
    return;
  }
  run.keeper = std::make_unique<OutputCutter>(plan.output.get(), *plan.request.max_output);
  run.record().output.retention = OutputRetention::head_only;
}

// Phase 2: room for the final record (a task that starts has it; on a full
// disk it does not start), the task's cgroup and the output bound.
void prepare(SupervisorRun& run)
{
  auto& plan = run.plan;
  TaskRecord& record = run.record();
  if (const int err = reserve_outcome_space(plan.lock); err == ENOSPC || err == EDQUOT) {
    refuse_start(run,
                 "no room for the task's records in " + run.dir.path() + ": " + std::strerror(err));
  }
  // --memory-max, --pids-max, --cpu-max: the task's own cgroup, made before
  // the command exists so that its whole tree starts inside.
  if (record.options.limits.any()) {
    auto cgroup = TaskCgroup::create(record.id, cgroup_limits(record.options.limits));
    if (!cgroup) {
      refuse_start(run, "cannot create the task's cgroup: " + cgroup.error());
    }
    plan.cgroup = std::move(cgroup).value();
    record.cgroup = plan.cgroup->paths();
  }
  if (!run.signal_fd) {
    refuse_start(run, "cannot set up the supervisor: " + std::string(std::strerror(errno)));
  }
  prepare_output_bound(run);
  if (record.options.pty) {
    auto pty = PtyOutput::open(plan.output.get());
    if (!pty) {
      refuse_start(run, pty.error());
    }
    plan.pty.emplace(std::move(pty).value());
  }
}

// Phases 3 to 5: launch and supervise every attempt, then the final record
// and the hook.
[[noreturn]] void launch_supervise_finish(SupervisorRun& run)
{
  auto& plan = run.plan;
  OutputKeeper* keeper = run.keeper.get();
  AttemptRunner attempts(run.dir, plan, run.signal_fd.get(), keeper,
                         [&](const std::string& line) { run.report(line); });
  // Not a structured binding: the lambda below uses both (clang 14 cannot
  // capture bindings).
  const auto outcome = attempts.run();
  const auto& status = outcome.first;
  const auto& stopping = outcome.second;
  CgroupReport cgroup_report;
  if (plan.cgroup) {
    cgroup_report = CgroupReport{plan.cgroup->memory_peak(), plan.cgroup->pids_limit_hits()};
    plan.cgroup->remove(); // KILLs what the command left in it
  }
  struct stat st
  {
  };
  const std::uint64_t bytes =
    ::fstat(plan.output.get(), &st) == 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
  // The output is durable before the record that counts its bytes is
  // (fdatasync: its size, not its times, is needed to read it back). An
  // empty output counts nothing, and its fdatasync would still cost a
  // flush of the device's cache.
  const int output_sync_error = bytes == 0 ? 0 : sync_fd(plan.output.get(), SyncWhat::data);
  save_final_record(
    run.dir, plan.lock, run.record(),
    [&](TaskRecord& r) {
      r.output.bytes = bytes;
      if (output_sync_error != 0) {
        add_event(r, "output_error",
                  std::string("cannot make the output durable: ") +
                    std::strerror(output_sync_error));
      }
      if (keeper) {
        record_output_bound(r.output, *keeper);
        if (!keeper->write_error().empty()) {
          add_event(r, "output_error", keeper->write_error());
        }
      }
      if (plan.pty && !plan.pty->write_error().empty()) {
        add_event(r, "output_error", plan.pty->write_error());
      }
      attempts.apply_last(r);
      apply_outcome(r, status, stopping, plan.request);
      if (plan.cgroup) {
        apply_cgroup_report(r, cgroup_report, attempts.last_was_oom());
      }
    },
    k_final_record_attempts);
  hand_off(run.dir, plan); // the slot is free and the task settled: the next may start
  run_exit_hook(run.dir, plan.lock, run.record());
  ::_exit(0);
}

// The last resort for an exception in any phase: stops the command (it can
// no longer be supervised), records the task as `lost` with the reason,
// answers `start` if it still waits, and exits. Nothing escapes it.
[[noreturn]] void abandon(SupervisorRun& run, const char* what) noexcept
{
  try {
    const std::string reason = std::string("supervisor failed: ") + what;
    if (const auto& child = run.record().child;
        child && child->pid > 1 && is_own_child(child->pid)) {
      ::kill(-child->pgid, SIGKILL); // an unreaped child: its pid and group cannot be another's
      ::kill(child->pid, SIGKILL);
    }
    if (run.plan.cgroup) {
      run.plan.cgroup->remove();
    }
    if (!run.reported()) {
      remove_unrecorded_task_files(run.dir, run.record().id);
      run.report("1\n" + reason);
    }
    if (load_record(run.dir, run.record().id).status != LoadStatus::missing) {
      save_final_record(
        run.dir, run.plan.lock, run.record(),
        [&](TaskRecord& r) {
          add_event(r, "supervisor_error", what);
          finish_record(r, TaskState::lost, reason);
        },
        3);
    }
    hand_off(run.dir, run.plan);
  } catch (...) {
    // nothing more can be done
  }
  ::_exit(1);
}

} // namespace

void run_supervisor(const TaskDir& dir, SupervisorPlan plan)
{
  SupervisorRun run{dir, plan, {}, {}};
  try {
    detach(run);
    prepare(run);
    launch_supervise_finish(run);
  } catch (const std::exception& e) {
    abandon(run, e.what());
  } catch (...) {
    abandon(run, "unknown exception");
  }
}

} // namespace bgtask
