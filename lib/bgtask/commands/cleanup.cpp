#include <bgtask/cli/command_line.hpp>
#include <bgtask/cli/console.hpp>
#include <bgtask/commands/commands.hpp>
#include <bgtask/core/cleanup_selection.hpp>
#include <bgtask/exec/executors.hpp>
#include <bgtask/store/dir_lock.hpp>
#include <bgtask/store/event_log.hpp>
#include <bgtask/store/record_events.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/store/task_files.hpp>
#include <bgtask/store/task_lock.hpp>
#include <bgtask/util/byte_size.hpp>
#include <bgtask/util/dir_stream.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/parallel.hpp>
#include <bgtask/util/terminal_escape.hpp>

#include <boost/json.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <dirent.h>
#include <fcntl.h>
#include <iostream>
#include <map>
#include <optional>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <thread>
#include <unistd.h>

namespace bgtask {

namespace {

struct TaskFiles
{
  bool status = false;
  bool output = false;
  bool lock = false;
  bool outcome = false;
  std::vector<std::string> temps;
};

struct Summary
{
  std::size_t matched = 0;
  std::size_t removed = 0;
  std::size_t skipped_running = 0;
  std::uint64_t bytes_freed = 0;
};

using FileMap = std::map<std::string, TaskFiles>;

FileMap scan_files(const TaskDir& dir)
{
  FileMap files;
  DirStream stream = dir.entries();
  while (const dirent* entry = stream.next()) {
    const auto file = parse_task_file_name(entry->d_name);
    if (!file) {
      continue;
    }
    auto& task = files[file->id];
    switch (file->kind) {
    case TaskFileKind::status:
      task.status = true;
      break;
    case TaskFileKind::output:
      task.output = true;
      break;
    case TaskFileKind::lock:
      task.lock = true;
      break;
    case TaskFileKind::outcome:
      task.outcome = true;
      break;
    case TaskFileKind::temp:
      task.temps.emplace_back(entry->d_name);
      break;
    }
  }
  return files;
}

// Size of a regular file, or nullopt if it is missing or anything else.
std::optional<struct stat> stat_file(const TaskDir& dir, const std::string& name)
{
  struct stat st
  {
  };
  if (::fstatat(dir.fd(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    return std::nullopt;
  }
  return st;
}

// The bytes a file takes on disk (its blocks: the hole retention punches
// in an output costs nothing); 0 for anything but a regular file.
std::uint64_t bytes_on_disk(const struct stat& st)
{
  return S_ISREG(st.st_mode) ? static_cast<std::uint64_t>(st.st_blocks) * 512U : 0;
}

std::uint64_t remove_file(const TaskDir& dir, const std::string& name)
{
  const auto st = stat_file(dir, name);
  if (!st || ::unlinkat(dir.fd(), name.c_str(), 0) != 0) {
    return 0;
  }
  return bytes_on_disk(*st);
}

// The bytes a task's record, output, outcome and lock files take on disk.
std::uint64_t files_size(const TaskDir& dir, const std::string& id)
{
  std::uint64_t bytes = 0;
  for (const auto& name :
       {status_file_name(id), output_file_name(id), outcome_file_name(id), lock_file_name(id)}) {
    if (const auto st = stat_file(dir, name)) {
      bytes += bytes_on_disk(*st);
    }
  }
  return bytes;
}

// The owner of a task whose record is final has only its exit (or its
// --on-exit hook) left, and a `wait` that read it only its exit (a helper
// it forked may hold the reader lock a moment longer): `wait` then `cleanup`
// must not find the task still held, so give them a moment. False if the
// task is still held after that.
bool take_locks_soon(TaskLock& lock)
{
  using Clock = std::chrono::steady_clock;
  const auto until = Clock::now() + std::chrono::seconds(1);
  while (!lock.try_take_ownership() || !lock.try_lock_updates() || !lock.try_exclude_readers()) {
    if (Clock::now() >= until) {
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

// Removes a finished task's files (record first, lock last) while holding
// its lock; nullopt if its owner still runs (an exit hook) or another
// cleanup removed it first. The record was read final, and a final record
// never turns unfinished, so it is not read again. The caller syncs the
// directory once for all tasks.
std::optional<std::uint64_t> remove_task(const TaskDir& dir, const std::string& id)
{
  auto lock = TaskLock::open_existing(dir, id);
  // A `wait` that has not read the final record yet keeps the task (reader
  // lock): the next cleanup removes it.
  if (lock && !take_locks_soon(*lock)) {
    return std::nullopt;
  }
  const auto record_name = status_file_name(id);
  const auto record = stat_file(dir, record_name);
  if (!record || ::unlinkat(dir.fd(), record_name.c_str(), 0) != 0) {
    return std::nullopt;
  }
  std::uint64_t bytes = bytes_on_disk(*record);
  bytes += remove_file(dir, output_file_name(id));
  bytes += remove_file(dir, outcome_file_name(id));
  bytes += remove_file(dir, lock_file_name(id));
  return bytes;
}

constexpr std::size_t k_removers = 16;          // unlinking mostly waits for the device
constexpr std::size_t k_tasks_per_thread = 500; // below this, one thread does all
constexpr std::size_t k_tasks_per_block = 64;

std::size_t thread_count(std::size_t tasks, std::size_t most)
{
  return std::clamp<std::size_t>(tasks / k_tasks_per_thread, 1, most);
}

// The records of `ids` that parse, in ID order; corrupt records are left out
// (list and status report them; cleanup never deletes them).
std::vector<TaskRecord> read_records(const TaskDir& dir, const std::vector<std::string>& ids)
{
  std::vector<std::optional<TaskRecord>> loaded(ids.size());
  read_records_in_parallel(ids.size(), [&](std::size_t, std::size_t i) {
    auto entry = load_record(dir, ids[i]);
    if (entry.status == LoadStatus::ok) {
      loaded[i] = std::move(entry.record);
    }
  });
  std::vector<TaskRecord> records;
  records.reserve(ids.size());
  for (auto& record : loaded) {
    if (record) {
      records.push_back(std::move(*record));
    }
  }
  return records;
}

// remove_task for each of `tasks`, on several threads: the bytes freed for
// each, or nullopt where it was not removed.
std::vector<std::optional<std::uint64_t>> remove_tasks(const TaskDir& dir,
                                                       const std::vector<const TaskRecord*>& tasks)
{
  std::vector<std::optional<std::uint64_t>> freed(tasks.size());
  for_each_index_in_parallel(
    tasks.size(), thread_count(tasks.size(), k_removers), k_tasks_per_block,
    [&](std::size_t, std::size_t i) { freed[i] = remove_task(dir, tasks[i]->id); });
  return freed;
}

// Removes temps no writer holds, and files of tasks that never got a record
// and have no owner: a `start` or supervisor that died before the first
// record. The ownership lock decides; a `start` that loses its fresh lock to
// this picks another ID (TaskLock::create_owned).
void remove_leftovers(const TaskDir& dir, const std::string& id, const TaskFiles& files)
{
  auto lock = TaskLock::open_existing(dir, id);
  if (lock && !lock->try_lock_updates()) {
    return; // a writer is at work
  }
  for (const auto& temp : files.temps) {
    remove_file(dir, temp);
  }
  if (files.status || !(files.output || files.lock || files.outcome)) {
    return;
  }
  if (lock && !lock->try_take_ownership()) {
    return;
  }
  if (stat_file(dir, status_file_name(id))) {
    return; // the task got its record (and finished) since the scan
  }
  remove_file(dir, output_file_name(id));
  remove_file(dir, outcome_file_name(id));
  remove_file(dir, lock_file_name(id));
  dir.sync();
}

} // namespace

po::options_description cleanup_options()
{
  po::options_description options;
  options.add_options()(
    "older-than", po::value<std::string>(),
    "only tasks that finished more than DUR ago (default 7d, unless --max-bytes or IDs are "
    "given)")("state", po::value<std::string>(),
              "only tasks in these final states (comma-separated)")(
    "keep", po::value<std::string>(), "spare the N most recently finished tasks")(
    "max-bytes", po::value<std::string>()->value_name("SIZE"),
    "remove the oldest finished tasks until finished tasks' files take at most SIZE (e.g. 500M); "
    "no default age filter then\n"
    "Their blocks count, as `du(1)` counts them: the hole that `--max-output` punches in an "
    "output costs nothing.")("dry-run", "show what would be removed, remove nothing\n"
                                        "Each as `would remove ID STATE`.")(
    "json", "print a JSON summary: {matched, removed, skipped_running, bytes_freed, dry_run}")(
    "quiet,q", "print nothing on success");
  return options;
}

namespace {

// What the command line asked for, parsed.
struct CleanupRequest
{
  CleanupCriteria criteria;
  Milliseconds older_than{0};
  bool named = false; // task IDs were given
  bool dry_run = false;
  bool json = false;
  bool listed = false; // print a line per task
};

CleanupRequest parse_request(const CommandArgs& args)
{
  const auto& vm = args.options;
  CleanupRequest request;
  request.named = !args.operands.empty();
  auto& criteria = request.criteria;
  if (auto text = optional_value<std::string>(vm, "max-bytes")) {
    criteria.max_bytes = value_or_usage(parse_byte_size(*text));
  }
  request.older_than =
    value_or_usage(parse_duration(optional_value<std::string>(vm, "older-than")
                                    .value_or(criteria.max_bytes || request.named ? "0" : "7d")));
  if (auto text = optional_value<std::string>(vm, "state")) {
    criteria.states = parse_state_list(*text, "");
  }
  if (const auto keep_text = optional_value<std::string>(vm, "keep")) {
    criteria.keep = value_or_usage(parse_count(*keep_text, "--keep"));
  }
  request.dry_run = vm.count("dry-run") != 0;
  request.json = vm.count("json") != 0;
  request.listed = !request.json && vm.count("quiet") == 0;
  return request;
}

// The reconciled records of the tasks to consider: the named ones, else every
// task with a record. Unfinished ones are counted (and named, if asked for by
// ID) but left out.
std::vector<TaskRecord> finished_records(const TaskDir& dir, const FileMap& files,
                                         const CommandArgs& args, Summary& summary)
{
  std::vector<std::string> ids;
  for (const auto& [id, task] : files) {
    if (task.status) {
      ids.push_back(id);
    }
  }
  const bool named = !args.operands.empty();
  if (named) {
    ids = resolve_task_ids(dir, args.operands); // unknown IDs: exit 2 before anything is removed
  }
  std::vector<TaskRecord> records = read_records(dir, ids);
  // One batch, so that Slurm's controller is asked once, not once per task.
  reconcile_records(dir, records);
  std::vector<TaskRecord> finished;
  for (auto& record : records) {
    if (!is_final(record.state)) {
      ++summary.skipped_running;
      if (named) {
        std::cerr << "bgtask: task " << record.id << " is " << to_string(record.state)
                  << "; not removed\n";
      }
      continue;
    }
    finished.push_back(std::move(record));
  }
  return finished;
}

// Removes the chosen tasks, then the leftovers of tasks that never got a
// record, and counts what went.
void remove_chosen(const TaskDir& dir, const FileMap& files,
                   const std::vector<const TaskRecord*>& chosen, bool listed, Summary& summary)
{
  std::vector<TaskRecord> records;
  records.reserve(chosen.size());
  for (const auto* record : chosen) {
    records.push_back(*record);
  }
  try {
    append_missing_final_events(dir, records); // the log keeps every final state it was told
  } catch (const Error& e) {
    std::cerr << "bgtask: warning: " << e.what() << '\n';
  }
  const auto freed = remove_tasks(dir, chosen);
  std::vector<StreamEvent> cleaned;
  for (std::size_t i = 0; i < chosen.size(); ++i) {
    if (!freed[i]) {
      continue;
    }
    cleaned.push_back(cleaned_event(*chosen[i]));
    ++summary.removed;
    summary.bytes_freed += *freed[i];
    if (listed) {
      std::cout << "removed " << chosen[i]->id << ' ' << to_string(chosen[i]->state) << '\n';
    }
  }
  if (summary.removed > 0) {
    dir.sync(); // once for all removals, not once per task
    log_events(dir, cleaned);
  }
  for (const auto& [id, task] : files) {
    if (!task.temps.empty() || (!task.status && (task.output || task.lock || task.outcome))) {
      remove_leftovers(dir, id, task);
    }
  }
  remove_abandoned_dir_temps(dir);
}

void print_summary(const Summary& summary, bool dry_run)
{
  boost::json::object o;
  o["matched"] = summary.matched;
  o["removed"] = summary.removed;
  o["skipped_running"] = summary.skipped_running;
  o["bytes_freed"] = summary.bytes_freed;
  o["dry_run"] = dry_run;
  print_json(o);
}

} // namespace

int run_cleanup(const GlobalOptions& global, const CommandArgs& args)
{
  CleanupRequest request = parse_request(args);
  const TaskDir dir = open_task_dir(global);
  struct statvfs mount
  {
  };
  if (!request.dry_run && ::fstatvfs(dir.fd(), &mount) == 0 && (mount.f_flag & ST_RDONLY) != 0) {
    throw_system("cannot clean up " + dir.path(), EROFS); // rather than skip every task
  }
  const auto files = scan_files(dir);
  Summary summary;
  const std::vector<TaskRecord> finished = finished_records(dir, files, args, summary);
  // With --max-bytes: the files of all finished tasks, shrinking as tasks go.
  std::vector<std::uint64_t> task_bytes;
  if (request.criteria.max_bytes) {
    for (const auto& record : finished) {
      task_bytes.push_back(files_size(dir, record.id));
    }
  }
  request.criteria.cutoff = now() - request.older_than;
  std::vector<const TaskRecord*> chosen;
  for (const std::size_t i : select_for_removal(finished, task_bytes, request.criteria)) {
    chosen.push_back(&finished[i]);
  }
  summary.matched = chosen.size();
  if (request.dry_run) {
    for (const auto* record : chosen) {
      if (request.listed) {
        std::cout << "would remove " << record->id << ' ' << to_string(record->state) << '\n';
      }
    }
  } else {
    remove_chosen(dir, files, chosen, request.listed, summary);
    try {
      trim_event_log(dir, now() - std::max(request.older_than, k_event_retention));
    } catch (const Error& e) {
      std::cerr << "bgtask: warning: " << e.what() << '\n';
    }
  }
  if (request.json) {
    print_summary(summary, request.dry_run);
  } else if (chosen.empty() && request.listed && stdout_is_terminal()) {
    // Silence stays for cron and scripts; a person is told it ran.
    std::cout << "nothing to remove in " << escape_for_terminal(dir.path(), KeepNewlines::no)
              << '\n';
  }
  return 0;
}

} // namespace bgtask
