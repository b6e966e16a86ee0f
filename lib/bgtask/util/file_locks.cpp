#include <bgtask/util/decimal_count.hpp>
#include <bgtask/util/dir_stream.hpp>
#include <bgtask/util/fd_io.hpp>
#include <bgtask/util/file_locks.hpp>

#include <algorithm>
#include <chrono>
#include <dirent.h>
#include <sstream>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace bgtask {

namespace {

constexpr std::size_t k_fdinfo_max = 64 * 1024;

// Parses the `lock:` lines of one fdinfo file into `out`, for descriptor
// `fd` of `pid` (a line: "lock:\t1: FLOCK ADVISORY WRITE 12 fe:00:34 0 EOF").
void parse_fdinfo_locks(int pid, int fd, const std::string& text, std::vector<HeldLock>& out)
{
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (!line.starts_with("lock:")) {
      continue;
    }
    std::istringstream words(line.substr(5));
    std::string number, kind, mode, access, owner, file, start, end;
    if (!(words >> number >> kind >> mode >> access >> owner >> file >> start >> end)) {
      continue;
    }
    HeldLock lock;
    lock.fd = fd;
    lock.flock = kind == "FLOCK";
    lock.exclusive = access == "WRITE";
    lock.start = static_cast<off_t>(std::strtoll(start.c_str(), nullptr, 10));
    if (end != "EOF") {
      lock.end = static_cast<off_t>(std::strtoll(end.c_str(), nullptr, 10));
    }
    const std::string link = "/proc/" + std::to_string(pid) + "/fd/" + std::to_string(fd);
    struct stat st
    {
    };
    if (::stat(link.c_str(), &st) != 0) {
      continue; // closed meanwhile
    }
    lock.dev = st.st_dev;
    lock.ino = st.st_ino;
    char target[4096];
    const ssize_t n = ::readlink(link.c_str(), target, sizeof(target));
    lock.path.assign(target, n > 0 ? static_cast<std::size_t>(n) : 0);
    out.push_back(std::move(lock));
  }
}

// The descriptors of `pid`, by number.
std::vector<int> descriptors_of(int pid)
{
  std::vector<int> fds;
  DirStream stream = DirStream::open(("/proc/" + std::to_string(pid) + "/fdinfo").c_str());
  if (!stream) {
    return fds;
  }
  while (const dirent* entry = stream.next()) {
    if (const auto fd = parse_decimal<int>(entry->d_name)) {
      fds.push_back(*fd);
    }
  }
  return fds;
}

std::vector<HeldLock> locks_of(int pid, const std::vector<int>& fds)
{
  std::vector<HeldLock> locks;
  const std::string base = "/proc/" + std::to_string(pid) + "/fdinfo/";
  for (const int fd : fds) {
    const std::string text = read_small_file((base + std::to_string(fd)).c_str(), k_fdinfo_max);
    if (text.find("\nlock:") != std::string::npos) {
      parse_fdinfo_locks(pid, fd, text, locks);
    }
  }
  return locks;
}

} // namespace

bool retry_until_taken(const std::function<bool()>& try_take, Milliseconds patience)
{
  const auto give_up = std::chrono::steady_clock::now() + patience;
  auto pause = std::chrono::milliseconds(1);
  while (!try_take()) {
    if (std::chrono::steady_clock::now() >= give_up) {
      return false;
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(20));
  }
  return true;
}

std::vector<HeldLock> locks_held_by(int pid)
{
  return locks_of(pid, descriptors_of(pid));
}

std::vector<int> lock_holders(int fd, off_t byte)
{
  struct stat target
  {
  };
  std::vector<int> holders;
  if (::fstat(fd, &target) != 0) {
    return holders;
  }
  DirStream proc = DirStream::open("/proc");
  while (const dirent* entry = proc ? proc.next() : nullptr) {
    const auto pid = parse_decimal<int>(entry->d_name);
    if (!pid || *pid == ::getpid()) {
      continue;
    }
    // Only the descriptors of the file itself are read (one stat each).
    std::vector<int> same_file;
    const std::string base = "/proc/" + std::to_string(*pid) + "/fd/";
    for (const int candidate : descriptors_of(*pid)) {
      struct stat st
      {
      };
      if (::stat((base + std::to_string(candidate)).c_str(), &st) == 0 &&
          st.st_dev == target.st_dev && st.st_ino == target.st_ino) {
        same_file.push_back(candidate);
      }
    }
    const auto locks = locks_of(*pid, same_file);
    if (std::any_of(locks.begin(), locks.end(),
                    [&](const HeldLock& l) { return l.covers(byte); })) {
      holders.push_back(*pid);
    }
  }
  return holders;
}

std::string describe_lock_holders(const std::vector<int>& pids)
{
  if (pids.empty()) {
    return "an unknown process";
  }
  std::string text;
  for (const int pid : pids) {
    const std::string dir = "/proc/" + std::to_string(pid);
    std::string comm = read_small_file((dir + "/comm").c_str(), 64);
    comm.erase(std::remove(comm.begin(), comm.end(), '\n'), comm.end());
    const std::string stat = read_small_file((dir + "/stat").c_str(), 4096);
    const auto paren = stat.rfind(')');
    const char state =
      paren != std::string::npos && paren + 2 < stat.size() ? stat[paren + 2] : '?';
    const bool stopped = state == 'T' || state == 't';
    text += (text.empty() ? "" : ", ") + ("pid " + std::to_string(pid)) + " (" +
            (comm.empty() ? "?" : comm) + (stopped ? ", stopped" : "") + ")";
  }
  return text;
}

} // namespace bgtask
