#include <bgtask/core/record_json.hpp>
#include <bgtask/core/task_id.hpp>
#include <bgtask/store/atomic_file.hpp>
#include <bgtask/store/owned_file.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/store/task_files.hpp>
#include <bgtask/util/dir_stream.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/parallel.hpp>
#include <bgtask/util/paths.hpp>
#include <bgtask/util/resource_shortage.hpp>
#include <bgtask/util/unique_fd.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace bgtask {

namespace {

LoadedRecord corrupt(LoadedRecord result, std::string reason)
{
  result.status = LoadStatus::corrupt;
  result.reason = std::move(reason);
  return result;
}

} // namespace

void remove_unrecorded_task_files(const TaskDir& dir, std::string_view id)
{
  if (load_record(dir, id).status != LoadStatus::missing) {
    return;
  }
  ::unlinkat(dir.fd(), output_file_name(id).c_str(), 0);
  ::unlinkat(dir.fd(), outcome_file_name(id).c_str(), 0);
  ::unlinkat(dir.fd(), lock_file_name(id).c_str(), 0);
}

LoadedRecord load_record(const TaskDir& dir, std::string_view id)
{
  LoadedRecord result;
  result.id = std::string(id);
  using Status = OwnedFile::Status;
  const OwnedFile file = read_owned_file(dir, status_file_name(id), k_max_record_bytes);
  if ((file.status == Status::cannot_open || file.status == Status::cannot_read) &&
      is_resource_shortage(file.error)) {
    throw_system("cannot read the record of task " + result.id, file.error);
  }
  switch (file.status) {
  case Status::ok:
    break;
  case Status::missing:
    return result;
  case Status::cannot_open:
    return corrupt(std::move(result), file.error == ELOOP ? "record is a symbolic link"
                                                          : std::string(std::strerror(file.error)));
  case Status::not_regular:
    return corrupt(std::move(result), "record is not a regular file");
  case Status::other_owner:
    return corrupt(std::move(result), "record is owned by uid " + std::to_string(file.uid));
  case Status::too_large:
    return corrupt(std::move(result), "record larger than 1 MiB");
  case Status::cannot_read:
    return corrupt(std::move(result), std::string("cannot read: ") + std::strerror(file.error));
  }
  const std::string& text = file.text;
  auto record = decode_record(text);
  if (!record) {
    return corrupt(std::move(result), record.error());
  }
  if (record->id != id) {
    return corrupt(std::move(result), "record names another task (" + record->id + ")");
  }
  result.status = LoadStatus::ok;
  result.record = std::move(record).value();
  return result;
}

void save_record(const TaskDir& dir, TaskRecord& record)
{
  ++record.generation;
  replace_file_atomically(dir, status_file_name(record.id), encode_record(record));
}

std::vector<std::string> scan_task_ids(const TaskDir& dir)
{
  DirStream stream = dir.entries();
  std::vector<std::string> ids;
  while (const dirent* entry = stream.next()) {
    auto file = parse_task_file_name(entry->d_name);
    if (file && file->kind == TaskFileKind::status) {
      ids.push_back(std::move(file->id));
    }
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

std::vector<TaskRecord> load_records(const TaskDir& dir, const RecordFilter& keep)
{
  return load_records(dir, scan_task_ids(dir), keep);
}

std::vector<TaskRecord> load_records(const TaskDir& dir, const std::vector<std::string>& ids,
                                     const RecordFilter& keep)
{
  std::vector<TaskRecord> records;
  records.reserve(ids.size()); // pages only touched as records are kept
  for (const auto& id : ids) {
    auto loaded = load_record(dir, id);
    if (loaded.status == LoadStatus::ok && (!keep || keep(loaded.record))) {
      records.push_back(std::move(loaded.record));
    }
  }
  return records;
}

std::size_t record_reader_count(std::size_t count)
{
  constexpr std::size_t k_most = 4;
  constexpr std::size_t k_records_per_reader = 2000; // below this, one thread reads all
  const std::size_t cores = std::max(1U, std::thread::hardware_concurrency());
  return std::clamp<std::size_t>(count / k_records_per_reader, 1, std::min(cores, k_most));
}

void read_records_in_parallel(
  std::size_t count, const std::function<void(std::size_t reader, std::size_t index)>& read)
{
  constexpr std::size_t k_block = 256;
  for_each_index_in_parallel(count, record_reader_count(count), k_block, read);
}

bool task_removed(const TaskDir& dir, const std::string& status_name)
{
  struct stat st
  {
  };
  if (::fstat(dir.fd(), &st) == 0 && st.st_nlink == 0) {
    return true;
  }
  // A stat, not a load: running supervisors ask this every few seconds.
  return ::fstatat(dir.fd(), status_name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT;
}

std::string newest_task_id(const TaskDir& dir)
{
  DirStream stream = DirStream::open_at(dir.fd());
  if (!stream) {
    throw_system("cannot read " + dir.path(), errno);
  }
  std::string newest;
  while (const dirent* entry = stream.next()) {
    // Most names sort below the newest so far: skip them before parsing.
    const std::string_view name(entry->d_name);
    if (name.compare(0, k_task_id_length, newest) <= 0) {
      continue;
    }
    const auto file = parse_task_file_name(name);
    if (file && (file->kind == TaskFileKind::status || file->kind == TaskFileKind::lock)) {
      newest = file->id;
    }
  }
  return newest;
}

namespace {

// The directories the current one is known by: $PWD when it names it (so a
// path through a symbolic link matches as the shell shows it) and getcwd's.
// Throws Error(failure) if the current directory cannot be found.
std::vector<std::string> current_directory_names()
{
  std::vector<std::string> names;
  struct stat here
  {
  };
  struct stat shown
  {
  };
  const char* pwd = std::getenv("PWD");
  if (pwd != nullptr && pwd[0] == '/' && ::stat(".", &here) == 0 && ::stat(pwd, &shown) == 0 &&
      here.st_dev == shown.st_dev && here.st_ino == shown.st_ino) {
    names.emplace_back(pwd);
  }
  names.push_back(current_directory());
  return names;
}

// `@last`: the newest task; `@`: the newest whose cwd is the current directory.
TaskLookup newest_task(const TaskDir& dir, std::string_view reference)
{
  auto ids = scan_task_ids(dir);
  const bool here = reference == k_newest_here;
  const auto names = here ? current_directory_names() : std::vector<std::string>{};
  for (auto it = ids.rbegin(); it != ids.rend(); ++it) {
    if (!here) {
      return TaskLookup{*it, ""};
    }
    const auto loaded = load_record(dir, *it);
    if (loaded.status == LoadStatus::ok &&
        std::find(names.begin(), names.end(), loaded.record.cwd) != names.end()) {
      return TaskLookup{*it, ""};
    }
  }
  const std::string where = here && !names.empty() ? " started from " + names.front() : "";
  return TaskLookup{std::nullopt, "no task" + where + " in " + dir.path()};
}

} // namespace

TaskLookup look_up_task_id(const TaskDir& dir, std::string_view reference)
{
  check_task_id_prefix(reference);
  if (reference == k_newest_here || reference == k_newest) {
    return newest_task(dir, reference);
  }
  const std::string id_or_prefix = lowered(reference);
  if (id_or_prefix.size() == k_task_id_length) {
    struct stat st
    {
    };
    const auto name = status_file_name(id_or_prefix);
    if (::fstatat(dir.fd(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
      return TaskLookup{id_or_prefix, ""};
    }
    return TaskLookup{std::nullopt, "no task " + id_or_prefix + " in " + dir.path()};
  }
  std::vector<std::string> matches;
  for (auto& id : scan_task_ids(dir)) {
    if (id.starts_with(id_or_prefix)) {
      matches.push_back(std::move(id));
    }
  }
  if (matches.empty()) {
    return TaskLookup{std::nullopt, "no task matches '" + id_or_prefix + "' in " + dir.path()};
  }
  if (matches.size() > 1) {
    std::string list;
    for (const auto& id : matches) {
      list += (list.empty() ? "" : ", ") + id;
    }
    return TaskLookup{std::nullopt, "ambiguous task ID '" + id_or_prefix + "' matches " + list};
  }
  return TaskLookup{matches.front(), ""};
}

std::string resolve_task_id(const TaskDir& dir, std::string_view id_or_prefix)
{
  auto found = look_up_task_id(dir, id_or_prefix);
  if (!found.id) {
    throw_usage(found.problem);
  }
  return std::move(*found.id);
}

std::vector<std::string> resolve_task_ids(const TaskDir& dir,
                                          const std::vector<std::string>& prefixes)
{
  std::vector<std::string> ids;
  for (const auto& prefix : prefixes) {
    auto id = resolve_task_id(dir, prefix);
    if (std::find(ids.begin(), ids.end(), id) == ids.end()) {
      ids.push_back(std::move(id));
    }
  }
  return ids;
}

} // namespace bgtask
