// The `.parked` folder. A file is written to a temp, fsynced, linked under
// each task's name and the temp unlinked; the folder is fsynced once for
// all of them. Its contents: a header line, the umask in octal, then the
// environment and the --env values, each a count line followed by as many
// NUL-terminated entries.

#include <bgtask/store/owned_file.hpp>
#include <bgtask/store/parked_tasks.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/util/dir_stream.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/fd_io.hpp>
#include <bgtask/util/random_token.hpp>
#include <bgtask/util/unique_fd.hpp>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace bgtask {

namespace {

constexpr const char* k_folder = ".parked";
constexpr std::string_view k_header = "bgtask-launch-context 1\n";
constexpr char k_queue_mark = '+';
constexpr std::size_t k_max_context_bytes = 4 * 1024 * 1024;
constexpr const char* k_look_note = ".looked"; // lost_handoff_look_due

// The folder, created 0700 if `create`; invalid where it is missing or not
// the directory owner's alone. `created` says whether it was made now.
UniqueFd open_folder(const TaskDir& dir, bool create, bool* created = nullptr)
{
  if (create) {
    const bool made = ::mkdirat(dir.fd(), k_folder, 0700) == 0;
    if (!made && errno != EEXIST) {
      throw_system("cannot create " + dir.file_path(k_folder), errno);
    }
    if (created != nullptr) {
      *created = made;
    }
  }
  UniqueFd fd = open_at(dir.fd(), k_folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  struct stat st
  {
  };
  if (!fd || ::fstat(fd.get(), &st) != 0 || st.st_uid != dir.owner() || (st.st_mode & 077) != 0) {
    if (create) {
      throw Error(ExitCode::failure,
                  dir.file_path(k_folder) + " is not a folder of the directory's owner alone");
    }
    return {};
  }
  return fd;
}

void append_list(std::string& out, const std::vector<std::string>& entries)
{
  out += std::to_string(entries.size()) + "\n";
  for (const auto& entry : entries) {
    out += entry;
    out += '\0';
  }
}

bool read_list(std::string_view& text, std::vector<std::string>& entries)
{
  const auto newline = text.find('\n');
  std::size_t count = 0;
  if (newline == std::string_view::npos ||
      std::from_chars(text.data(), text.data() + newline, count).ptr != text.data() + newline) {
    return false;
  }
  text.remove_prefix(newline + 1);
  for (std::size_t i = 0; i < count; ++i) {
    const auto end = text.find('\0');
    if (end == std::string_view::npos) {
      return false;
    }
    entries.emplace_back(text.substr(0, end));
    text.remove_prefix(end + 1);
  }
  return true;
}

void write_whole_file(int folder, const std::string& name, std::string_view content)
{
  UniqueFd fd =
    open_at(folder, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  int err = fd ? write_all(fd.get(), content) : errno;
  if (err == 0) {
    err = sync_fd(fd.get(), SyncWhat::all);
  }
  if (err == 0 && ::close(fd.release()) != 0) {
    err = errno;
  }
  if (err != 0) {
    ::unlinkat(folder, name.c_str(), 0);
    throw_system("cannot write the launch context of a queued task", err);
  }
}

} // namespace

std::string ParkedEntry::file_name() const
{
  return queue ? id + k_queue_mark + *queue : id;
}

std::string encode_launch_context(const LaunchContext& context)
{
  std::string out(k_header);
  char umask_text[8];
  const auto end = std::to_chars(umask_text, umask_text + sizeof umask_text,
                                 static_cast<unsigned>(context.umask), 8)
                     .ptr;
  out.append(umask_text, end);
  out += '\n';
  append_list(out, context.environment);
  append_list(out, context.env_additions);
  return out;
}

Result<LaunchContext> decode_launch_context(std::string_view text)
{
  if (!text.starts_with(k_header)) {
    return Failure{"not a launch context"};
  }
  text.remove_prefix(k_header.size());
  LaunchContext context;
  const auto newline = text.find('\n');
  unsigned mask = 0;
  if (newline == std::string_view::npos ||
      std::from_chars(text.data(), text.data() + newline, mask, 8).ptr != text.data() + newline ||
      mask > 0777) {
    return Failure{"a launch context without a valid umask"};
  }
  context.umask = static_cast<mode_t>(mask);
  text.remove_prefix(newline + 1);
  if (!read_list(text, context.environment) || !read_list(text, context.env_additions) ||
      !text.empty()) {
    return Failure{"a truncated or malformed launch context"};
  }
  return context;
}

void park_tasks(const TaskDir& dir, const std::vector<ParkedEntry>& entries,
                const LaunchContext& context)
{
  bool created = false;
  const UniqueFd folder = open_folder(dir, true, &created);
  const std::string temp = ".context." + random_token() + ".tmp";
  write_whole_file(folder.get(), temp, encode_launch_context(context));
  std::size_t linked = 0;
  int err = 0;
  for (; linked < entries.size(); ++linked) {
    const auto name = entries[linked].file_name();
    if (::linkat(folder.get(), temp.c_str(), folder.get(), name.c_str(), 0) != 0) {
      err = errno;
      break;
    }
  }
  ::unlinkat(folder.get(), temp.c_str(), 0);
  if (err == 0) {
    err = sync_fd(folder.get(), SyncWhat::all);
  }
  if (err == 0 && created) {
    err = dir.sync();
  }
  if (err != 0) {
    for (std::size_t i = 0; i < linked; ++i) {
      ::unlinkat(folder.get(), entries[i].file_name().c_str(), 0);
    }
    throw_system("cannot record the queued task in " + dir.file_path(k_folder), err);
  }
}

void park_task_unsynced(const TaskDir& dir, const ParkedEntry& entry, const LaunchContext& context)
{
  const UniqueFd folder = open_folder(dir, true);
  const auto name = entry.file_name();
  UniqueFd fd =
    open_at(folder.get(), name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  const int err = fd ? write_all(fd.get(), encode_launch_context(context)) : errno;
  if (err != 0 || ::close(fd.release()) != 0) {
    const int error = err != 0 ? err : errno;
    ::unlinkat(folder.get(), name.c_str(), 0);
    throw_system("cannot record queued task " + entry.id + " in " + dir.file_path(k_folder), error);
  }
}

std::vector<ParkedEntry> scan_parked_tasks(const TaskDir& dir)
{
  std::vector<ParkedEntry> entries;
  const UniqueFd folder = open_folder(dir, false);
  if (!folder) {
    return entries;
  }
  DirStream stream = DirStream::open_at(folder.get());
  if (!stream) {
    return entries;
  }
  while (const dirent* entry = stream.next()) {
    const std::string_view name = entry->d_name;
    if (name.empty() || name.front() == '.') {
      continue;
    }
    const auto mark = name.find(k_queue_mark);
    ParkedEntry parked{std::string(name.substr(0, mark)), std::nullopt};
    if (mark != std::string_view::npos) {
      parked.queue = std::string(name.substr(mark + 1));
    }
    entries.push_back(std::move(parked));
  }
  std::sort(entries.begin(), entries.end(),
            [](const ParkedEntry& a, const ParkedEntry& b) { return a.id < b.id; });
  return entries;
}

void erase_parked_in_other_queues(const TaskDir& dir, std::string_view queue,
                                  std::vector<std::string>& ids)
{
  const auto parked = scan_parked_tasks(dir);
  auto next = parked.begin();
  std::erase_if(ids, [&](const std::string& id) {
    next = std::lower_bound(next, parked.end(), id,
                            [](const ParkedEntry& e, const std::string& i) { return e.id < i; });
    return next != parked.end() && next->id == id && next->queue && *next->queue != queue;
  });
}

bool lost_handoff_look_due(const TaskDir& dir, std::chrono::milliseconds interval)
{
  const UniqueFd folder = open_folder(dir, false);
  if (!folder) {
    return true;
  }
  struct stat st
  {
  };
  if (::fstatat(folder.get(), k_look_note, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode)) {
    const auto noted = std::chrono::system_clock::time_point(
      std::chrono::duration_cast<std::chrono::system_clock::duration>(
        std::chrono::seconds(st.st_mtim.tv_sec) + std::chrono::nanoseconds(st.st_mtim.tv_nsec)));
    const auto age = std::chrono::system_clock::now() - noted;
    if (age >= std::chrono::milliseconds(0) && age < interval) {
      return false;
    }
  }
  const UniqueFd note =
    open_at(folder.get(), k_look_note, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (note) {
    ::futimens(note.get(), nullptr);
  }
  return true;
}

Result<LaunchContext> read_parked_context(const TaskDir& dir, const ParkedEntry& entry)
{
  const UniqueFd folder = open_folder(dir, false);
  if (!folder) {
    return Failure{"no folder " + dir.file_path(k_folder)};
  }
  const OwnedFile file =
    read_owned_file_at(folder.get(), dir.owner(), entry.file_name(), k_max_context_bytes);
  if (file.status != OwnedFile::Status::ok) {
    return Failure{"cannot read the launch context of task " + entry.id};
  }
  return decode_launch_context(file.text);
}

bool move_to_queue_line(const TaskDir& dir, std::string_view id, std::string_view queue)
{
  const UniqueFd folder = open_folder(dir, false);
  const ParkedEntry from{std::string(id), std::nullopt};
  const ParkedEntry to{std::string(id), std::string(queue)};
  return folder && ::renameat(folder.get(), from.file_name().c_str(), folder.get(),
                              to.file_name().c_str()) == 0;
}

void unpark_task(const TaskDir& dir, std::string_view id, const std::optional<std::string>& queue)
{
  const UniqueFd folder = open_folder(dir, false);
  if (!folder) {
    return;
  }
  ::unlinkat(folder.get(), std::string(id).c_str(), 0);
  if (queue) {
    ::unlinkat(folder.get(), ParkedEntry{std::string(id), queue}.file_name().c_str(), 0);
  }
}

} // namespace bgtask
