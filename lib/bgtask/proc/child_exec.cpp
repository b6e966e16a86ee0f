#include <bgtask/proc/child_exec.hpp>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

namespace bgtask {

namespace {

bool kept(std::initializer_list<int> keep, int fd)
{
  return std::find(keep.begin(), keep.end(), fd) != keep.end();
}

// The smallest kept descriptor >= `from`, or -1.
int next_kept(std::initializer_list<int> keep, int from)
{
  int best = -1;
  for (const int fd : keep) {
    if (fd >= from && (best < 0 || fd < best)) {
      best = fd;
    }
  }
  return best;
}

bool close_ranges(std::initializer_list<int> keep)
{
  int next = 3;
  for (int fd = next_kept(keep, next); fd >= 0; fd = next_kept(keep, next)) {
    if (fd > next &&
        ::close_range(static_cast<unsigned>(next), static_cast<unsigned>(fd) - 1, 0) != 0) {
      return false;
    }
    next = fd + 1;
  }
  return ::close_range(static_cast<unsigned>(next), ~0U, 0) == 0;
}

// Closes what /proc/self/fd lists; false if it cannot be read.
bool close_listed(std::initializer_list<int> keep)
{
  const int dir = ::open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) {
    return false;
  }
  alignas(8) char buffer[4096];
  ssize_t got = 0;
  while ((got = ::getdents64(dir, buffer, sizeof(buffer))) > 0) {
    for (ssize_t at = 0; at < got;) {
      // struct linux_dirent64: ino (8), off (8), reclen (2), type (1), name.
      std::uint16_t length = 0;
      __builtin_memcpy(&length, buffer + at + 16, sizeof(length));
      const char* name = buffer + at + 19;
      int fd = 0;
      bool number = *name != '\0';
      for (; *name != '\0'; ++name) {
        number = number && *name >= '0' && *name <= '9';
        fd = fd * 10 + (*name - '0');
      }
      if (number && fd > 2 && fd != dir && !kept(keep, fd)) {
        ::close(fd);
      }
      at += length;
    }
  }
  ::close(dir);
  return got == 0;
}

} // namespace

void reset_child_signals(ProcessGroup group)
{
  if (group == ProcessGroup::own) {
    ::setpgid(0, 0);
  }
  sigset_t none;
  ::sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  struct sigaction default_action
  {
  };
  default_action.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) {
    if (sig != SIGKILL && sig != SIGSTOP) {
      ::sigaction(sig, &default_action, nullptr);
    }
  }
}

std::vector<char*> to_c_strings(std::vector<std::string>& strings)
{
  std::vector<char*> pointers;
  pointers.reserve(strings.size() + 1);
  for (auto& s : strings) {
    pointers.push_back(s.data());
  }
  pointers.push_back(nullptr);
  return pointers;
}

ExecStrings::ExecStrings(std::vector<std::string> strings)
  : m_strings(std::move(strings)),
    m_pointers(to_c_strings(m_strings))
{
}

void close_descriptors_except(std::initializer_list<int> keep)
{
  if (close_ranges(keep) || close_listed(keep)) {
    return;
  }
  rlimit limit{};
  const rlim_t end = ::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY
                       ? std::min<rlim_t>(limit.rlim_cur, 1 << 20)
                       : 65536;
  for (int fd = 3; static_cast<rlim_t>(fd) < end; ++fd) {
    if (!kept(keep, fd)) {
      ::close(fd);
    }
  }
}

} // namespace bgtask
