#include <bgtask/proc/cgroup.hpp>
#include <bgtask/proc/stop_loop.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/split.hpp>
#include <bgtask/util/unique_fd.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <map>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace bgtask {

namespace {

constexpr const char* k_parent = "bgtask";
constexpr std::uint64_t k_cpu_period_us = 100000;

// The mounted cgroup hierarchies: the v2 one (if any) with the controllers
// it offers, and the v1 mount of each controller.
struct Hierarchies
{
  std::string v2;
  std::vector<std::string> v2_controllers;
  std::map<std::string, std::string> v1;
};

std::optional<std::string> read_file(const std::string& path)
{
  std::ifstream in(path);
  if (!in) {
    return std::nullopt;
  }
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The mounted hierarchies; a Failure if /proc/self/mounts or the v2
// controllers cannot be read (too many open files, say): that is no proof
// that the machine has none.
Result<Hierarchies> find_hierarchies()
{
  Hierarchies found;
  std::ifstream mounts("/proc/self/mounts");
  if (!mounts) {
    return Failure{std::string("cannot read /proc/self/mounts: ") + std::strerror(errno)};
  }
  std::string device, point, type, options;
  std::string rest;
  while (mounts >> device >> point >> type >> options && std::getline(mounts, rest)) {
    if (type == "cgroup2" && found.v2.empty()) {
      found.v2 = point;
      const auto controllers = read_file(point + "/cgroup.controllers");
      if (!controllers) {
        return Failure{"cannot read " + point + "/cgroup.controllers: " + std::strerror(errno)};
      }
      for (const auto part : split(*controllers, ' ', EmptyParts::drop)) {
        std::string c(part);
        c.erase(std::remove(c.begin(), c.end(), '\n'), c.end());
        found.v2_controllers.push_back(c);
      }
    } else if (type == "cgroup") {
      for (const auto option : split(options, ',', EmptyParts::drop)) {
        found.v1.emplace(option, point); // the first mount of a controller wins
      }
    }
  }
  return found;
}

std::vector<std::string> needed_controllers(const CgroupLimits& limits)
{
  std::vector<std::string> needed;
  if (limits.memory_max) {
    needed.emplace_back("memory");
  }
  if (limits.pids_max) {
    needed.emplace_back("pids");
  }
  if (limits.cpu_max) {
    needed.emplace_back("cpu");
  }
  return needed;
}

bool uses_v2(const Hierarchies& h, const std::vector<std::string>& needed)
{
  return !h.v2.empty() && std::all_of(needed.begin(), needed.end(), [&](const std::string& c) {
    return std::find(h.v2_controllers.begin(), h.v2_controllers.end(), c) != h.v2_controllers.end();
  });
}

bool write_file(const std::string& path, std::string_view text, std::string& error)
{
  const UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC));
  if (fd && ::write(fd.get(), text.data(), text.size()) == static_cast<ssize_t>(text.size())) {
    return true;
  }
  error = "cannot write " + std::string(text) + " to " + path + ": " + std::strerror(errno);
  return false;
}

// Makes `dir` (an existing one is fine); false and `error` otherwise.
bool make_dir(const std::string& dir, std::string& error)
{
  if (::mkdir(dir.c_str(), 0755) == 0 || errno == EEXIST) {
    return true;
  }
  error = "cannot create " + dir + ": " + std::strerror(errno);
  return false;
}

// The value after `key` on its line of a flat keyed file (memory.events, pids.events).
std::uint64_t read_key(const std::string& path, std::string_view key)
{
  std::istringstream in(read_file(path).value_or(""));
  std::string name;
  std::uint64_t value = 0;
  while (in >> name >> value) {
    if (name == key) {
      return value;
    }
  }
  return 0;
}

std::optional<std::uint64_t> read_number(const std::string& path)
{
  const auto text = read_file(path);
  if (!text) {
    return std::nullopt;
  }
  try {
    return std::stoull(*text);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// The limits written into a v1 controller's group, or into the v2 group.
bool apply_limits(const std::string& dir, const CgroupLimits& limits, bool v2, std::string& error)
{
  if (limits.memory_max) {
    const auto bytes = std::to_string(*limits.memory_max);
    if (!write_file(dir + (v2 ? "/memory.max" : "/memory.limit_in_bytes"), bytes, error)) {
      return false;
    }
    // Without swap in the limit, the tree would swap instead of meeting it.
    std::string ignored;
    write_file(dir + (v2 ? "/memory.swap.max" : "/memory.memsw.limit_in_bytes"), v2 ? "0" : bytes,
               ignored);
  }
  if (limits.pids_max && !write_file(dir + "/pids.max", std::to_string(*limits.pids_max), error)) {
    return false;
  }
  if (limits.cpu_max) {
    const auto quota = std::max<std::uint64_t>(
      1000, static_cast<std::uint64_t>(std::llround(*limits.cpu_max * k_cpu_period_us)));
    if (v2) {
      return write_file(dir + "/cpu.max",
                        std::to_string(quota) + " " + std::to_string(k_cpu_period_us), error);
    }
    return write_file(dir + "/cpu.cfs_period_us", std::to_string(k_cpu_period_us), error) &&
           write_file(dir + "/cpu.cfs_quota_us", std::to_string(quota), error);
  }
  return true;
}

} // namespace

std::string cgroup_unavailable_reason(const CgroupLimits& limits)
{
  const auto needed = needed_controllers(limits);
  if (needed.empty()) {
    return {};
  }
  const auto found = find_hierarchies();
  if (!found) {
    throw Error(ExitCode::failure, found.error());
  }
  const Hierarchies& h = *found;
  std::vector<std::string> bases;
  if (uses_v2(h, needed)) {
    bases.push_back(h.v2);
  } else {
    for (const auto& c : needed) {
      const auto it = h.v1.find(c);
      if (it == h.v1.end()) {
        return "no cgroup hierarchy offers the " + c + " controller (cgroup v2 at " +
               (h.v2.empty() ? std::string("none") : h.v2) + ", no v1 " + c + " mount)";
      }
      bases.push_back(it->second);
    }
  }
  for (const auto& base : bases) {
    std::string error;
    const std::string parent = base + "/" + k_parent;
    if (!make_dir(parent, error) || ::access(parent.c_str(), W_OK) != 0) {
      return error.empty() ? parent + " is not writable by this user" : error;
    }
  }
  return {};
}

Result<TaskCgroup> TaskCgroup::create(std::string_view id, const CgroupLimits& limits)
{
  std::string error;
  const auto needed = needed_controllers(limits);
  const auto found = find_hierarchies();
  if (!found) {
    return Failure{found.error()};
  }
  const Hierarchies& h = *found;
  TaskCgroup group;
  group.m_v2 = !needed.empty() && uses_v2(h, needed);
  const auto make = [&](const std::string& base, std::string& into) {
    const std::string parent = base + "/" + k_parent;
    const std::string dir = parent + "/" + std::string(id);
    if (!make_dir(parent, error) || !make_dir(dir, error)) {
      return false;
    }
    into = dir;
    return true;
  };
  bool ok = true;
  if (group.m_v2) {
    std::string enable;
    for (const auto& c : needed) {
      enable += (enable.empty() ? "+" : " +") + c;
    }
    ok = write_file(h.v2 + "/cgroup.subtree_control", enable, error) &&
         make(h.v2, group.m_unified) &&
         write_file(h.v2 + "/" + k_parent + "/cgroup.subtree_control", enable, error) &&
         apply_limits(group.m_unified, limits, true, error);
  } else {
    for (const auto& c : needed) {
      const auto it = h.v1.find(c);
      std::string& dir = c == "memory" ? group.m_memory : c == "pids" ? group.m_pids : group.m_cpu;
      if (it == h.v1.end()) {
        error = "no cgroup hierarchy offers the " + c + " controller";
        ok = false;
      }
      ok = ok && make(it->second, dir) && apply_limits(dir, limits, false, error);
      if (!ok) {
        break;
      }
    }
    if (const auto it = h.v1.find("freezer"); ok && it != h.v1.end()) {
      std::string ignored;
      if (!make(it->second, group.m_freezer)) {
        error.clear(); // pause falls back to signals
      }
    }
  }
  if (!ok) {
    group.remove();
    return Failure{std::move(error)};
  }
  return group;
}

bool TaskCgroup::add_process(int pid, std::string& error) const
{
  for (const auto* dir : {&m_unified, &m_memory, &m_pids, &m_cpu, &m_freezer}) {
    if (!dir->empty() && !write_file(*dir + "/cgroup.procs", std::to_string(pid), error)) {
      return false;
    }
  }
  return true;
}

std::vector<int> TaskCgroup::processes() const
{
  std::vector<int> pids;
  for (const auto* dir : {&m_unified, &m_memory, &m_pids, &m_cpu, &m_freezer}) {
    if (dir->empty()) {
      continue;
    }
    std::istringstream in(read_file(*dir + "/cgroup.procs").value_or(""));
    int pid = 0;
    while (in >> pid) {
      if (std::find(pids.begin(), pids.end(), pid) == pids.end()) {
        pids.push_back(pid);
      }
    }
  }
  return pids;
}

std::uint64_t TaskCgroup::oom_kills() const
{
  if (m_v2) {
    return read_key(m_unified + "/memory.events", "oom_kill");
  }
  return m_memory.empty() ? 0 : read_key(m_memory + "/memory.oom_control", "oom_kill");
}

std::optional<std::uint64_t> TaskCgroup::memory_peak() const
{
  if (m_v2) {
    return read_number(m_unified + "/memory.peak");
  }
  return m_memory.empty() ? std::nullopt : read_number(m_memory + "/memory.max_usage_in_bytes");
}

std::uint64_t TaskCgroup::pids_limit_hits() const
{
  const std::string& dir = m_v2 ? m_unified : m_pids;
  return dir.empty() ? 0 : read_key(dir + "/pids.events", "max");
}

bool TaskCgroup::set_frozen(bool frozen) const
{
  std::string error;
  if (m_v2) {
    return write_file(m_unified + "/cgroup.freeze", frozen ? "1" : "0", error);
  }
  return !m_freezer.empty() &&
         write_file(m_freezer + "/freezer.state", frozen ? "FROZEN" : "THAWED", error);
}

bool TaskCgroup::frozen_now() const
{
  if (m_v2) {
    return read_key(m_unified + "/cgroup.events", "frozen") == 1;
  }
  const auto state = read_file(m_freezer + "/freezer.state");
  return !m_freezer.empty() && state && state->starts_with("FROZEN");
}

std::string TaskCgroup::paths() const
{
  std::string text;
  for (const auto* dir : {&m_unified, &m_memory, &m_pids, &m_cpu, &m_freezer}) {
    if (!dir->empty()) {
      text += (text.empty() ? "" : ";") + *dir;
    }
  }
  return text;
}

void TaskCgroup::remove()
{
  set_frozen(false); // a frozen v1 process cannot die
  stop_processes(
    [&](int sig) {
      int signalled = 0;
      for (const int pid : processes()) {
        signalled += pid > 1 && ::kill(pid, sig) == 0 ? 1 : 0;
      }
      return signalled;
    },
    {}, std::nullopt, ReapChildren::yes);
  for (auto* dir : {&m_unified, &m_memory, &m_pids, &m_cpu, &m_freezer}) {
    if (!dir->empty()) {
      ::rmdir(dir->c_str());
      dir->clear();
    }
  }
}

namespace {

// True if `dir` is what create() makes: an absolute path ending in
// bgtask/NAME (NAME being `id` unless it is empty).
bool is_task_group(const std::string& dir, std::string_view id)
{
  const auto slash = dir.rfind('/');
  return dir.starts_with('/') && slash != std::string::npos &&
         dir.find("..") == std::string::npos &&
         dir.substr(0, slash).ends_with(std::string("/") + k_parent) &&
         (id.empty() || std::string_view(dir).substr(slash + 1) == id);
}

} // namespace

void TaskCgroup::remove_leftover(std::string_view paths)
{
  for (const auto part : split(paths, ';', EmptyParts::drop)) {
    const std::string dir(part);
    if (is_task_group(dir, "")) {
      ::rmdir(dir.c_str());
    }
  }
}

TaskCgroup TaskCgroup::recorded(std::string_view paths, std::string_view id)
{
  TaskCgroup group;
  for (const auto part : split(paths, ';', EmptyParts::drop)) {
    const std::string dir(part);
    struct stat st
    {
    };
    if (id.empty() || !is_task_group(dir, id) || ::stat(dir.c_str(), &st) != 0 ||
        !S_ISDIR(st.st_mode)) {
      continue;
    }
    // Which hierarchy: a v2 group has cgroup.freeze, a v1 freezer group
    // freezer.state; the others only list and lose their processes.
    if (::access((dir + "/cgroup.freeze").c_str(), F_OK) == 0) {
      group.m_v2 = true;
      group.m_unified = dir;
    } else if (::access((dir + "/freezer.state").c_str(), F_OK) == 0) {
      group.m_freezer = dir;
    } else if (group.m_memory.empty()) {
      group.m_memory = dir;
    } else if (group.m_pids.empty()) {
      group.m_pids = dir;
    } else {
      group.m_cpu = dir;
    }
  }
  return group;
}

} // namespace bgtask
