#include <bgtask/core/record_json.hpp>
#include <bgtask/store/record_events.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/record_transaction.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/store/task_files.hpp>
#include <bgtask/store/task_lock.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/fd_io.hpp>
#include <bgtask/util/test_seams.hpp>
#include <bgtask/util/unique_fd.hpp>

#include <cerrno>
#include <deque>
#include <fcntl.h>
#include <unistd.h>

namespace bgtask {

RecordUpdate update_record(const TaskDir& dir, TaskLock& lock, std::string_view id,
                           const RecordChange& change, const TaskRecord* replacement)
{
  RecordUpdate result;
  UpdateLockGuard guard(lock);
  // `cleanup` removes a task's files under this same lock (record first,
  // lock file last), so under it the task is either whole or gone.
  if (!lock.is_linked(dir, id)) {
    return result;
  }
  auto loaded = load_record(dir, id);
  if (loaded.status == LoadStatus::missing) {
    return result;
  }
  if (loaded.status == LoadStatus::corrupt && replacement == nullptr) {
    result.status = UpdateStatus::corrupt;
    result.reason = std::move(loaded.reason);
    return result;
  }
  if (loaded.status == LoadStatus::ok) {
    result.record = std::move(loaded.record);
  } else {
    result.record = *replacement;
  }
  const TaskRecord before = result.record;
  if (change(result.record) == Change::keep) {
    result.status = UpdateStatus::kept;
    return result;
  }
  save_record(dir, result.record);
  log_record_change(dir, &before, result.record);
  result.status = UpdateStatus::saved;
  return result;
}

bool update_own_record(const TaskDir& dir, TaskLock& lock, TaskRecord& record,
                       const std::function<void(TaskRecord&)>& change)
{
  auto update = update_record(
    dir, lock, record.id,
    [&](TaskRecord& current) {
      change(current);
      return Change::save;
    },
    &record);
  if (update.status != UpdateStatus::saved) {
    return false;
  }
  record = std::move(update.record);
  return true;
}

RecordUpdate update_record(const TaskDir& dir, std::string_view id, const RecordChange& change)
{
  auto lock = TaskLock::open_existing(dir, id);
  if (!lock) {
    return {};
  }
  return update_record(dir, *lock, id, change);
}

void create_record(const TaskDir& dir, TaskLock& lock, TaskRecord& record)
{
  UpdateLockGuard guard(lock);
  if (!lock.is_linked(dir, record.id)) {
    throw Error(ExitCode::failure, "cannot write the record of task " + record.id + ": " +
                                     dir.file_path(lock_file_name(record.id)) +
                                     " was removed meanwhile");
  }
  save_record(dir, record);
  log_record_change(dir, nullptr, record);
}

namespace {

// Writes `records` (their update locks held by the caller) with one sync
// for all: each to a temp, syncfs(2), each rename while its `ID.lock`
// names it, syncfs again. Bumps each generation. Throws Error(failure)
// naming the first record that could not be written; the temps left are
// removed, the records renamed before it may not be durable.
void save_records_together(const TaskDir& dir, const std::vector<TaskLock*>& locks,
                           const std::vector<TaskRecord*>& records)
{
  if (records.empty()) {
    return;
  }
  std::vector<std::string> temps;
  const auto remove_temps = [&](std::size_t from) {
    for (std::size_t i = from; i < temps.size(); ++i) {
      ::unlinkat(dir.fd(), temps[i].c_str(), 0);
    }
  };
  for (TaskRecord* record : records) {
    ++record->generation;
    temps.push_back(temp_file_name(status_file_name(record->id)));
    UniqueFd fd = open_at(dir.fd(), temps.back().c_str(),
                          O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    const int err = fd ? write_all(fd.get(), encode_record(*record)) : errno;
    if (err != 0 || ::close(fd.release()) != 0) {
      remove_temps(0);
      throw_system("cannot write the record of task " + record->id, err != 0 ? err : errno);
    }
  }
  kill_at_group_start_seam("temps_written");
  const auto sync = [&] {
    if (::syncfs(dir.fd()) != 0) {
      throw_system(
        "cannot make the records of " + std::to_string(records.size()) + " tasks durable", errno);
    }
  };
  try {
    sync();
  } catch (const Error&) {
    remove_temps(0);
    throw;
  }
  for (std::size_t i = 0; i < records.size(); ++i) {
    if (i == records.size() / 2) {
      kill_at_group_start_seam("half_renamed");
    }
    const std::string& id = records[i]->id;
    if (!locks[i]->is_linked(dir, id) ||
        ::renameat(dir.fd(), temps[i].c_str(), dir.fd(), status_file_name(id).c_str()) != 0) {
      const int err = errno;
      remove_temps(i);
      throw_system("cannot write the record of task " + id, err);
    }
  }
  sync();
}

} // namespace

void create_records(const TaskDir& dir, const std::vector<NewRecord>& batch)
{
  // Each task's update lock from its temp until its rename: `cleanup`
  // removes the temps of tasks whose update lock is free.
  std::deque<UpdateLockGuard> guards;
  std::vector<TaskLock*> locks;
  std::vector<TaskRecord*> records;
  for (const auto& item : batch) {
    guards.emplace_back(*item.lock);
    locks.push_back(item.lock);
    records.push_back(item.record);
  }
  save_records_together(dir, locks, records);
  guards.clear();
  const std::vector<const TaskRecord*> created(records.begin(), records.end());
  log_record_changes(dir, std::vector<const TaskRecord*>(created.size(), nullptr), created);
}

std::vector<RecordUpdate> update_records(const TaskDir& dir, const std::vector<TaskLock*>& locks,
                                         const std::vector<std::string>& ids,
                                         const RecordChange& change)
{
  std::vector<RecordUpdate> results(ids.size());
  std::deque<UpdateLockGuard> guards;
  std::vector<TaskLock*> save_locks;
  std::vector<TaskRecord*> saved;
  std::vector<TaskRecord> befores;
  befores.reserve(ids.size()); // pointers into it are kept below
  for (std::size_t i = 0; i < ids.size(); ++i) {
    guards.emplace_back(*locks[i]);
    if (!locks[i]->is_linked(dir, ids[i])) {
      continue;
    }
    auto loaded = load_record(dir, ids[i]);
    RecordUpdate& result = results[i];
    if (loaded.status != LoadStatus::ok) {
      result.status =
        loaded.status == LoadStatus::corrupt ? UpdateStatus::corrupt : UpdateStatus::gone;
      result.reason = std::move(loaded.reason);
      continue;
    }
    result.record = std::move(loaded.record);
    befores.push_back(result.record);
    if (change(result.record) == Change::keep) {
      befores.pop_back();
      result.status = UpdateStatus::kept;
      continue;
    }
    result.status = UpdateStatus::saved; // once saved below, or the whole batch throws
    save_locks.push_back(locks[i]);
    saved.push_back(&result.record);
  }
  save_records_together(dir, save_locks, saved);
  std::vector<const TaskRecord*> before_pointers;
  before_pointers.reserve(befores.size());
  for (const TaskRecord& before : befores) {
    before_pointers.push_back(&before);
  }
  const std::vector<const TaskRecord*> after(saved.begin(), saved.end());
  // Still under the update locks, as update_record: a backfill
  // (append_missing_final_events) never comes between a save and its append.
  log_record_changes(dir, before_pointers, after);
  return results;
}

} // namespace bgtask
