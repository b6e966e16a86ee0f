#include <bgtask/proc/process_info.hpp>
#include <bgtask/proc/process_tree.hpp>
#include <bgtask/util/dir_stream.hpp>
#include <bgtask/util/unique_fd.hpp>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <dirent.h>
#include <fcntl.h>
#include <string>
#include <unistd.h>
#include <unordered_map>

namespace bgtask {

namespace {

// Calls `visit(pid)` for every numeric entry of /proc.
template <typename Visit> void for_each_pid(Visit visit)
{
  DirStream proc = DirStream::open("/proc");
  if (!proc) {
    return;
  }
  while (const dirent* entry = proc.next()) {
    char* end = nullptr;
    const long pid = std::strtol(entry->d_name, &end, 10);
    if (pid > 0 && *end == '\0') {
      visit(static_cast<int>(pid));
    }
  }
}

bool environment_contains(int pid, const std::string& entry)
{
  const std::string path = "/proc/" + std::to_string(pid) + "/environ";
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) {
    return false;
  }
  std::string environ;
  char buffer[8192];
  ssize_t n = 0;
  while ((n = ::read(fd.get(), buffer, sizeof(buffer))) > 0) {
    environ.append(buffer, static_cast<std::size_t>(n));
  }
  std::size_t start = 0;
  while (start < environ.size()) {
    const auto end = environ.find('\0', start);
    const auto length = (end == std::string::npos ? environ.size() : end) - start;
    if (environ.compare(start, length, entry) == 0) {
      return true;
    }
    if (end == std::string::npos) {
      break;
    }
    start = end + 1;
  }
  return false;
}

} // namespace

std::vector<int> find_descendants(int ancestor)
{
  std::unordered_map<int, int> parent_of;
  for_each_pid([&](int pid) {
    if (const auto stat = read_process_stat(pid); stat && stat->state != 'Z') {
      parent_of[pid] = stat->ppid;
    }
  });
  std::vector<int> descendants;
  for (const auto& [pid, ppid] : parent_of) {
    int cursor = ppid;
    for (int depth = 0; cursor > 1 && depth < 4096; ++depth) {
      if (cursor == ancestor) {
        descendants.push_back(pid);
        break;
      }
      const auto it = parent_of.find(cursor);
      cursor = it == parent_of.end() ? 0 : it->second;
    }
  }
  return descendants;
}

std::vector<int> find_task_processes(std::string_view id)
{
  const std::string entry = "BGTASK_ID=" + std::string(id);
  const int self = ::getpid();
  std::vector<int> pids;
  for_each_pid([&](int pid) {
    if (pid != self && environment_contains(pid, entry)) {
      if (const auto stat = read_process_stat(pid); stat && stat->state != 'Z') {
        pids.push_back(pid);
      }
    }
  });
  return pids;
}

void signal_processes(int pgid, const std::vector<int>& pids, int signal)
{
  if (pgid > 1) {
    ::kill(-pgid, signal);
  }
  for (const int pid : pids) {
    if (pid > 1) {
      ::kill(pid, signal);
    }
  }
}

bool process_group_exists(int pgid)
{
  return pgid > 1 && (::kill(-pgid, 0) == 0 || errno == EPERM);
}

} // namespace bgtask
