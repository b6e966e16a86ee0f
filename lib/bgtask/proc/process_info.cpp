#include <bgtask/proc/process_info.hpp>
#include <bgtask/util/fd_io.hpp>
#include <bgtask/util/monotonic_clock.hpp>
#include <bgtask/util/test_seams.hpp>
#include <bgtask/util/utf8.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

namespace bgtask {

namespace {

std::string read_first_line(const char* path)
{
  std::string line = read_small_file(path, 128);
  if (auto end = line.find('\n'); end != std::string::npos) {
    line.resize(end);
  }
  return line;
}

// The boottime offset of this process's time namespace in clock ticks
// (/proc/self/timens_offsets: "boottime SECONDS NANOSECONDS"); 0 without
// time namespaces.
std::int64_t boottime_offset_ticks()
{
  static const std::int64_t ticks = [] {
    const std::string offsets = read_small_file("/proc/self/timens_offsets", 255);
    const char* found = std::strstr(offsets.c_str(), "boottime");
    if (found == nullptr) {
      return std::int64_t{0};
    }
    char* end = nullptr;
    const long long seconds = std::strtoll(found + 8, &end, 10);
    const long long nanoseconds = std::strtoll(end, nullptr, 10);
    const long hz = ::sysconf(_SC_CLK_TCK) > 0 ? ::sysconf(_SC_CLK_TCK) : 100;
    return static_cast<std::int64_t>(seconds * hz + nanoseconds / (1000000000LL / hz));
  }();
  return ticks;
}

// The line of /proc/PID/status that starts with `key` (e.g. "Uid:"), or empty.
std::string status_line(int pid, std::string_view key)
{
  const std::string path = "/proc/" + std::to_string(pid) + "/status";
  const std::string status = read_small_file(path.c_str(), 4096);
  const std::string_view text = status;
  for (std::size_t at = 0; at < text.size();) {
    const auto end = std::min(text.find('\n', at), text.size());
    if (text.substr(at, key.size()) == key) {
      return std::string(text.substr(at + key.size(), end - at - key.size()));
    }
    at = end + 1;
  }
  return {};
}

std::uint64_t namespace_inode(const char* path)
{
  struct stat st
  {
  };
  return ::stat(path, &st) == 0 ? static_cast<std::uint64_t>(st.st_ino) : 0;
}

} // namespace

std::optional<ProcessStat> read_process_stat(int pid)
{
  if (pid <= 0) {
    return std::nullopt;
  }
  const std::string path = "/proc/" + std::to_string(pid) + "/stat";
  const std::string stat_line = read_small_file(path.c_str(), 1023);
  const std::string_view text = stat_line;
  const auto close_paren = text.rfind(')');
  if (close_paren == std::string_view::npos || close_paren + 2 >= text.size()) {
    return std::nullopt;
  }
  // Fields after comm: 3 state, 4 ppid, 5 pgrp, ... 22 starttime.
  const char* cursor = text.data() + close_paren + 2;
  ProcessStat stat;
  stat.state = *cursor;
  cursor += 1;
  char* end = nullptr;
  for (int field = 4; field <= 22; ++field) {
    const unsigned long long value = std::strtoull(cursor, &end, 10);
    if (end == cursor) {
      return std::nullopt;
    }
    if (field == 4) {
      stat.ppid = static_cast<int>(value);
    } else if (field == 5) {
      stat.pgid = static_cast<int>(value);
    } else if (field == 6) {
      stat.session = static_cast<int>(value);
    } else if (field == 22) {
      const auto normalized = static_cast<std::int64_t>(value) - boottime_offset_ticks();
      stat.start_time = static_cast<std::uint64_t>(std::max<std::int64_t>(normalized, 0));
    }
    cursor = end;
  }
  return stat;
}

bool is_same_process(int pid, std::uint64_t start_time)
{
  const auto stat = read_process_stat(pid);
  return stat && stat->state != 'Z' && stat->state != 'X' && stat->start_time == start_time;
}

bool is_same_process(int pid, std::uint64_t start_time, int session)
{
  const auto stat = read_process_stat(pid);
  return stat && stat->state != 'Z' && stat->state != 'X' && stat->start_time == start_time &&
         stat->session == session;
}

bool process_owned_by(int pid, uid_t uid)
{
  if (pid <= 0) {
    return false;
  }
  // "Uid:\tREAL\tEFFECTIVE\tSAVED\tFILESYSTEM"
  const std::string line = status_line(pid, "Uid:");
  char* end = nullptr;
  const unsigned long real = std::strtoul(line.c_str(), &end, 10);
  if (end == line.c_str()) {
    return false;
  }
  const char* next = end;
  const unsigned long effective = std::strtoul(next, &end, 10);
  return end != next && real == uid && effective == uid;
}

std::uint64_t current_pid_namespace()
{
  return namespace_inode("/proc/self/ns/pid");
}

bool sees_pid_namespace(std::uint64_t ns)
{
  if (ns == 0) {
    return true;
  }
  // /proc/self names this process by its pid in the namespace /proc shows.
  char link[32] = {};
  const ssize_t n = ::readlink("/proc/self", link, sizeof(link) - 1);
  return n > 0 &&
         std::string_view(link, static_cast<std::size_t>(n)) == std::to_string(::getpid()) &&
         current_pid_namespace() == ns;
}

std::string current_boot_id()
{
  const char* override_path = test_seam(TestSeam::boot_id_file);
  return override_path != nullptr ? read_first_line(override_path) : kernel_boot_id();
}

std::string current_host_name()
{
  struct utsname name
  {
  };
  if (::uname(&name) != 0) {
    return "localhost";
  }
  return name.nodename;
}

bool is_this_boot(std::string_view boot_id)
{
  return boot_id == to_valid_utf8(current_boot_id());
}

bool is_this_machine(std::string_view host, std::string_view boot_id)
{
  return is_this_boot(boot_id) || host == to_valid_utf8(current_host_name());
}

UniqueFd open_pidfd(int pid)
{
  if (pid <= 1) {
    return UniqueFd();
  }
  return UniqueFd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
}

int send_signal(const UniqueFd& pidfd, int signal)
{
  if (::syscall(SYS_pidfd_send_signal, pidfd.get(), signal, nullptr, 0) != 0) {
    return errno;
  }
  return 0;
}

} // namespace bgtask
