#include <bgtask/core/task_id.hpp>
#include <bgtask/exec/executors.hpp>
#include <bgtask/exec/start_task.hpp>
#include <bgtask/proc/process_info.hpp>
#include <bgtask/store/dir_lock.hpp>
#include <bgtask/store/queue_settings.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/store/task_files.hpp>
#include <bgtask/store/task_fingerprint.hpp>
#include <bgtask/store/task_id_claim.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/terminal_escape.hpp>

#include <algorithm>
#include <cstring>
#include <sys/resource.h>

namespace bgtask {

namespace {

// One descriptor per element stays open until the records are written.
void make_room_for_locks(std::size_t count)
{
  constexpr rlim_t spare = 64;
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY ||
      limit.rlim_cur >= count + spare) {
    return;
  }
  if (limit.rlim_max != RLIM_INFINITY && limit.rlim_max < count + spare) {
    throw Error(ExitCode::failure, "--array: " + std::to_string(count) +
                                     " tasks need as many open files, and this " +
                                     "process may open only " + std::to_string(limit.rlim_max) +
                                     " (ulimit -Hn); submit the array in smaller parts");
  }
  limit.rlim_cur = limit.rlim_max == RLIM_INFINITY ? count + spare : limit.rlim_max;
  ::setrlimit(RLIMIT_NOFILE, &limit);
}

// start_task for --array: one task per index, created at the same time;
// each ID sorts after the one before, so that the IDs sort in index order.
StartResult start_array(const TaskDir& dir, LaunchRequest request, const SlurmArraySpec& spec)
{
  make_room_for_locks(spec.indices.size());
  std::vector<ClaimedTask> elements;
  StartResult result;
  TaskIdClaim claim(dir, current_boot_id());
  for (std::size_t i = 0; i < spec.indices.size(); ++i) {
    TimePoint at;
    auto [id, lock] = claim.next(at);
    if (i == 0) {
      request.record.created_at = at;
    }
    result.ids.push_back(id);
    elements.push_back(ClaimedTask{std::move(id), std::move(lock)});
  }
  result.id = result.ids.front();
  result.launch = launch_array(dir, std::move(elements), std::move(request), spec);
  return result;
}

// Refuses a request that the kernel would carry out cut short: a word of
// the command, the working directory, a variable or the exit hook holding
// a NUL byte (a C string ends there). Throws Error(usage).
void refuse_nul_bytes(const LaunchRequest& request)
{
  const auto refuse_if_nul = [](const std::string& text, const std::string& what) {
    if (text.find('\0') != std::string::npos) {
      throw Error(ExitCode::usage, what + " holds a NUL byte, which no command line can carry");
    }
  };
  const auto& command = request.record.command;
  for (std::size_t i = 0; i < command.size(); ++i) {
    refuse_if_nul(command[i], "word " + std::to_string(i + 1) + " of the command");
  }
  for (const auto& word : request.argv) {
    refuse_if_nul(word, "the command");
  }
  refuse_if_nul(request.record.cwd, "the working directory");
  for (const auto& pair : request.env_additions) {
    refuse_if_nul(pair, "the value of " +
                          escape_for_terminal(pair.substr(0, pair.find('=')), KeepNewlines::no));
  }
  if (request.record.on_exit) {
    refuse_if_nul(*request.record.on_exit, "the --on-exit command");
  }
}

} // namespace

StartResult start_task(const TaskDir& dir, StartPlan plan)
{
  auto& request = plan.request;
  refuse_nul_bytes(request);
  request.record.after = resolve_task_ids(dir, plan.after);
  check_dependencies(dir, request.record);
  const auto fingerprint = task_fingerprint(dir, request);
  if (fingerprint) {
    request.record.fingerprint = *fingerprint;
  } else if (plan.dedupe) {
    throw Error(ExitCode::failure, "--dedupe: " + fingerprint.error());
  }
  if (plan.slots) {
    save_queue_settings(dir, *request.record.queue, *plan.slots);
  }
  std::optional<DirLock> admission;
  if (plan.dedupe || plan.max_running) {
    admission = DirLock::acquire(dir, k_start_lock_file);
    const auto unfinished = load_unfinished_records(dir);
    if (plan.dedupe) {
      const auto same =
        std::find_if(unfinished.begin(), unfinished.end(), [&](const TaskRecord& r) {
          return r.fingerprint == request.record.fingerprint;
        });
      if (same != unfinished.end()) {
        return StartResult{same->id, {same->id}, LaunchResult{}, true};
      }
    }
    if (plan.max_running) {
      const auto running = static_cast<std::size_t>(
        std::count_if(unfinished.begin(), unfinished.end(),
                      [](const TaskRecord& r) { return r.state == TaskState::running; }));
      if (running >= *plan.max_running) {
        throw Error(ExitCode::limit_reached,
                    "not starting: " + std::to_string(running) + " of the tasks in " + dir.path() +
                      " are running, and the limit is " + std::to_string(*plan.max_running) +
                      " (--max-running or BGTASK_MAX_RUNNING)");
      }
    }
  }
  if (plan.array) {
    return start_array(dir, std::move(request), *plan.array);
  }
  auto [id, lock] = TaskIdClaim(dir, current_boot_id()).next(request.record.created_at);
  request.record.id = id;
  StartResult result;
  result.id = id;
  result.ids = {id};
  request.record.output.path = dir.file_path(output_file_name(result.id));
  Executor& executor = executor_for(request.record.executor);
  result.launch = executor.launch(dir, std::move(lock), std::move(request));
  return result;
}

void require_durable_record(const TaskDir& dir, const StartResult& result)
{
  if (result.launch.exit_code == 0) {
    return;
  }
  if (load_record(dir, result.id).status == LoadStatus::missing) {
    throw Error(ExitCode::failure, "cannot start the task: " + result.launch.error);
  }
  if (const int error = dir.sync(); error != 0) {
    throw Error(ExitCode::failure, "cannot start the task: " + result.launch.error +
                                     " (and the task's record cannot be made durable: fsync of " +
                                     dir.path() + ": " + std::strerror(error) + ")");
  }
}

void require_launched(const StartResult& result)
{
  if (result.launch.exit_code != 0) {
    throw Error(static_cast<ExitCode>(result.launch.exit_code),
                (result.ids.size() > 1
                   ? std::to_string(result.ids.size()) + " tasks (" + result.id + ", ...)"
                   : "task " + result.id) +
                  " failed to start: " + result.launch.error);
  }
}

} // namespace bgtask
