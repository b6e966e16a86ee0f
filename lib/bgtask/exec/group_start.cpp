#include <bgtask/core/queue_admission.hpp>
#include <bgtask/exec/executors.hpp>
#include <bgtask/exec/group_start.hpp>
#include <bgtask/proc/caller_umask.hpp>
#include <bgtask/proc/process_info.hpp>
#include <bgtask/store/parked_tasks.hpp>
#include <bgtask/store/queue_settings.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/record_transaction.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/store/task_files.hpp>
#include <bgtask/store/task_id_claim.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/test_seams.hpp>
#include <bgtask/util/unique_fd.hpp>

#include <cerrno>
#include <fcntl.h>
#include <unistd.h>

extern char** environ;

namespace bgtask {

namespace {

// `word` with every `{}` replaced by `text`.
std::string substitute(const std::string& word, const std::string& text)
{
  std::string out;
  std::size_t from = 0;
  for (auto at = word.find("{}"); at != std::string::npos; at = word.find("{}", from)) {
    out.append(word, from, at - from).append(text);
    from = at + 2;
  }
  return out.append(word, from);
}

// The request of one item: its argv (`{}` replaced, unless the command is
// a `-c` string) and its variables.
LaunchRequest request_for(const LaunchRequest& shared, const GroupItem& item)
{
  LaunchRequest request = shared;
  if (!request.record.shell && item.text) {
    for (auto& word : request.argv) {
      word = substitute(word, *item.text);
    }
    request.record.command = request.argv;
  }
  request.env_additions.insert(request.env_additions.end(), item.env.begin(), item.env.end());
  return request;
}

LaunchContext context_for(const std::vector<std::string>& environment, const LaunchRequest& request)
{
  return LaunchContext{caller_umask(), environment, request.env_additions};
}

// Writes one group of waiting tasks: each task's ID, lock, output file and
// file in `.parked`, then all records with one sync; appends their IDs.
// An unset `group` becomes the first task's ID.
void park_group(const TaskDir& dir, const LaunchRequest& shared, const GroupItem* items,
                std::size_t count, std::optional<std::string>& group, std::vector<std::string>& ids)
{
  std::vector<std::string> environment;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    environment.emplace_back(*entry);
  }
  TaskIdClaim claim(dir, current_boot_id());
  std::vector<TaskLock> locks;
  std::vector<TaskRecord> records;
  locks.reserve(count);
  records.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    LaunchRequest request = request_for(shared, items[i]);
    TaskRecord& record = records.emplace_back(std::move(request.record));
    auto [id, lock] = claim.next(record.created_at);
    locks.push_back(std::move(lock));
    record.id = id;
    record.group = group.value_or(id);
    group = record.group;
    record.output.path = dir.file_path(output_file_name(id));
    record.state = TaskState::queued;
    record.waiting_for = first_wait(record);
    add_event(record, "queued", waiting_text(record));
    const UniqueFd output(open_at(dir.fd(), output_file_name(id).c_str(),
                                  O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (!output) {
      throw_system("cannot create " + dir.file_path(output_file_name(id)), errno);
    }
    request.record = record;
    park_task_unsynced(dir,
                       ParkedEntry{id, record.waiting_for == WaitingFor::slot
                                         ? record.queue
                                         : std::optional<std::string>()},
                       context_for(environment, request));
  }
  kill_at_group_start_seam("parked");
  std::vector<NewRecord> batch;
  for (std::size_t i = 0; i < count; ++i) {
    batch.push_back(NewRecord{&locks[i], &records[i]});
  }
  create_records(dir, batch);
  kill_at_group_start_seam("durable");
  for (const auto& record : records) {
    ids.push_back(record.id);
  }
}

// Starts one task that does not wait, as `start` does.
std::string start_one(const TaskDir& dir, const LaunchRequest& shared, const GroupItem& item,
                      std::optional<std::string>& group)
{
  LaunchRequest request = request_for(shared, item);
  auto [id, lock] = TaskIdClaim(dir, current_boot_id()).next(request.record.created_at);
  request.record.id = id;
  request.record.group = group.value_or(id);
  group = request.record.group;
  request.record.output.path = dir.file_path(output_file_name(id));
  StartResult result{id, {id}, {}, false};
  result.launch = executor_for(request.record.executor).launch(dir, std::move(lock), request);
  require_durable_record(dir, result);
  return id;
}

} // namespace

void start_group(const TaskDir& dir, StartPlan plan, const std::vector<GroupItem>& items,
                 std::size_t first_index, std::optional<std::string> group,
                 const DurableIds& on_durable)
{
  if (plan.dedupe || plan.max_running) {
    throw Error(ExitCode::usage,
                "--dedupe and --max-running cannot be used with --each-line or a local --array");
  }
  auto& request = plan.request;
  request.record.after = resolve_task_ids(dir, plan.after);
  check_dependencies(dir, request.record);
  if (plan.slots) {
    save_queue_settings(dir, *request.record.queue, *plan.slots);
  }
  const bool parks =
    request.record.executor == k_local_executor && must_wait_for_turn(request.record);
  std::size_t done = 0;
  try {
    while (done < items.size()) {
      std::vector<std::string> ids;
      if (parks) {
        const std::size_t count = std::min(k_group_sync_size, items.size() - done);
        park_group(dir, request, items.data() + done, count, group, ids);
        done += count;
      } else {
        ids.push_back(start_one(dir, request, items[done], group));
        ++done;
      }
      on_durable(ids);
      kill_at_group_start_seam("printed");
      if (parks) {
        admit_waiting_tasks(dir);
      }
    }
  } catch (const Error& e) {
    const std::size_t resume = first_index + done;
    throw Error(ExitCode::failure, std::string(e.what()) + "; " + std::to_string(done) + " of " +
                                     std::to_string(items.size()) +
                                     " tasks were started (their IDs are printed)" +
                                     "; go on with --resume " + std::to_string(resume));
  }
}

} // namespace bgtask
