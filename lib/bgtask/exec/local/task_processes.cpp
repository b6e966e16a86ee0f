#include <bgtask/core/task_id.hpp>
#include <bgtask/exec/local/task_processes.hpp>
#include <bgtask/proc/process_tree.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/util/dir_stream.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/random_token.hpp>

#include <climits>
#include <sys/stat.h>
#include <unistd.h>

namespace bgtask {

namespace {

// The task whose lock file `target` (a /proc/PID/fd link) names: its
// directory and ID; nullopt for anything else.
std::optional<std::pair<std::string, std::string>> lock_file_task(const std::string& target)
{
  constexpr std::string_view suffix = ".lock";
  const auto slash = target.rfind('/');
  if (slash == std::string::npos || slash == 0 || target.size() < slash + 1 + suffix.size() ||
      target.compare(target.size() - suffix.size(), suffix.size(), suffix) != 0) {
    return std::nullopt;
  }
  std::string id = target.substr(slash + 1, target.size() - slash - 1 - suffix.size());
  if (!is_task_id(id)) {
    return std::nullopt;
  }
  return std::pair{target.substr(0, slash), std::move(id)};
}

bool record_names_owner(const std::string& dir_path, const std::string& id, int pid,
                        std::uint64_t start_time)
{
  struct stat st
  {
  };
  if (::lstat(dir_path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return false; // and TaskDir::open must not create it
  }
  try {
    const TaskDir dir = TaskDir::open(dir_path);
    const auto loaded = load_record(dir, id);
    return loaded.status == LoadStatus::ok && !is_final(loaded.record.state) &&
           loaded.record.owner && loaded.record.owner->pid == pid &&
           loaded.record.owner->start_time == start_time;
  } catch (const Error&) {
    return false; // a directory bgtask would refuse names no task
  }
}

} // namespace

OwnerIdentity this_supervisor_identity()
{
  OwnerIdentity owner{::getpid(), random_token(),
                      read_process_stat(::getpid()).value_or(ProcessStat{}).start_time,
                      current_boot_id(), current_host_name()};
  owner.pid_ns = current_pid_namespace();
  return owner;
}

SessionIdentity task_session(const TaskRecord& record)
{
  return SessionIdentity{record.owner->pid, record.owner->start_time, ::geteuid()};
}

std::vector<int> task_session_processes(const TaskRecord& record)
{
  return record.owner ? session_members(task_session(record)) : std::vector<int>{};
}

bool is_other_task_supervisor(int pid, const ProcessStat& stat, std::string_view own_id)
{
  if (stat.session != pid) {
    return false; // every supervisor leads a session of its own
  }
  const std::string fd_dir = "/proc/" + std::to_string(pid) + "/fd";
  DirStream fds = DirStream::open(fd_dir.c_str());
  if (!fds) {
    return false;
  }
  while (const dirent* entry = fds.next()) {
    if (entry->d_name[0] == '.') {
      continue;
    }
    char target[PATH_MAX];
    const std::string link = fd_dir + "/" + entry->d_name;
    const ssize_t n = ::readlink(link.c_str(), target, sizeof(target) - 1);
    if (n <= 0) {
      continue;
    }
    const auto task = lock_file_task(std::string(target, static_cast<std::size_t>(n)));
    if (task && task->second != own_id &&
        record_names_owner(task->first, task->second, pid, stat.start_time)) {
      return true;
    }
  }
  return false;
}

std::vector<int> supervised_processes(int supervisor, std::string_view id)
{
  return find_descendants(supervisor, [&](int pid, const ProcessStat& stat) {
    return is_other_task_supervisor(pid, stat, id);
  });
}

} // namespace bgtask
