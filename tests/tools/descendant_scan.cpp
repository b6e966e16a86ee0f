// bgtask-descendant-scan: drives find_descendants through the race that pid
// wrap-around opens. Run as root in a pid namespace of its own (it writes
// /proc/sys/kernel/ns_last_pid) and as its init, with `unshare --pid --fork
// --mount-proc`: its sleeping processes end with the namespace.
//
// A parent with a pid near pid_max has children whose pids wrapped to the
// bottom of the range, and fillers sit between them, so a scan of /proc
// reads the children long before their parent. The parent is KILLed while
// the scan runs again and again: when it exits between the two reads, the
// children still named it as their parent but it is gone (or a zombie), and
// their new parent (this process, the namespace's init) is not what was
// read. Every scan must still find every child.
//
// Usage: bgtask-descendant-scan CHILDREN FILLERS PARENT_MIB
// Prints how many scans ran, during how many the parent exited, and how
// many missed a child. Exits 1 if a scan missed a child, 3 if the parent
// exited during none (nothing was shown: try again), 2 on a setup failure,
// else 0.

#include <bgtask/proc/process_tree.hpp>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace {

[[noreturn]] void die(const char* what)
{
  std::fprintf(stderr, "bgtask-descendant-scan: %s: %s\n", what, std::strerror(errno));
  std::exit(2);
}

void set_last_pid(long pid)
{
  std::ofstream out("/proc/sys/kernel/ns_last_pid");
  out << pid << '\n';
  out.flush();
  if (!out) {
    die("cannot write /proc/sys/kernel/ns_last_pid");
  }
}

long pid_max()
{
  std::ifstream in("/proc/sys/kernel/pid_max");
  long value = 0;
  if (!(in >> value) || value < 20000) {
    die("cannot read a usable /proc/sys/kernel/pid_max");
  }
  return value;
}

// True once `pid`, a child of this process, has exited (it is a zombie or
// reaped).
bool exited(pid_t pid)
{
  const auto stat = bgtask::read_process_stat(pid);
  return !stat || stat->state == 'Z';
}

pid_t fork_sleeper()
{
  const pid_t pid = ::fork();
  if (pid < 0) {
    die("fork");
  }
  if (pid == 0) {
    for (;;) {
      ::pause();
    }
  }
  return pid;
}

// Forks the parent with a pid near `top` and has it fork `children`
// sleepers, whose pids wrap around, then fill `bytes` of memory. Returns
// once it has.
pid_t fork_parent(int children, std::size_t bytes, long top)
{
  int go[2];
  int ready[2];
  if (::pipe(go) != 0 || ::pipe(ready) != 0) {
    die("pipe");
  }
  set_last_pid(top - 20);
  const pid_t parent = ::fork();
  if (parent < 0) {
    die("fork");
  }
  char byte = 0;
  if (parent == 0) {
    if (::read(go[0], &byte, 1) != 1) {
      std::_Exit(2);
    }
    for (int i = 0; i < children; ++i) {
      fork_sleeper();
    }
    // Memory to give back makes the exit last long enough to be scanned.
    auto* memory = static_cast<char*>(std::malloc(bytes));
    if (memory != nullptr) {
      std::memset(memory, 1, bytes);
    }
    if (::write(ready[1], &byte, 1) != 1) {
      std::_Exit(2);
    }
    for (;;) {
      ::pause();
    }
  }
  set_last_pid(300); // the children's pids wrap below the fillers'
  if (::write(go[1], &byte, 1) != 1 || ::read(ready[0], &byte, 1) != 1) {
    die("the parent did not get ready");
  }
  for (const int fd : {go[0], go[1], ready[0], ready[1]}) {
    ::close(fd);
  }
  return parent;
}

struct ScanCount
{
  int scans = 0;
  int straddled = 0; // scans during which the parent exited
  int missed = 0;    // scans that missed one of `expected`
};

// KILLs `parent` and scans this process's descendants back to back until
// three scans after it was reaped.
ScanCount scan_while_exiting(pid_t parent, const std::vector<int>& expected)
{
  ::kill(parent, SIGKILL);
  ScanCount count;
  int after_reaped = 0;
  while (after_reaped < 3) {
    const bool lived_before = !exited(parent);
    auto found = bgtask::find_descendants(::getpid());
    count.straddled += lived_before && exited(parent) ? 1 : 0;
    std::sort(found.begin(), found.end());
    ++count.scans;
    if (!std::includes(found.begin(), found.end(), expected.begin(), expected.end())) {
      ++count.missed;
    }
    if (after_reaped > 0 || ::waitpid(parent, nullptr, WNOHANG) == parent) {
      ++after_reaped;
    }
  }
  return count;
}

} // namespace

int main(int argc, char** argv)
{
  if (argc != 4) {
    std::fprintf(stderr, "usage: bgtask-descendant-scan CHILDREN FILLERS PARENT_MIB\n");
    return 2;
  }
  if (::getpid() != 1) {
    // Its sleepers end with the namespace: nowhere else would they.
    std::fprintf(stderr, "bgtask-descendant-scan: run it as a pid namespace's init "
                         "(unshare --pid --fork --mount-proc)\n");
    return 2;
  }
  const int children = std::atoi(argv[1]);
  const int fillers = std::atoi(argv[2]);
  // Orphans come back here, as they come back to a supervisor.
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  const long top = pid_max();
  set_last_pid(top / 2);
  for (int i = 0; i < fillers; ++i) {
    fork_sleeper();
  }
  const pid_t parent = fork_parent(children, std::strtoul(argv[3], nullptr, 10) << 20U, top);

  std::vector<int> expected = bgtask::find_descendants(parent);
  std::sort(expected.begin(), expected.end());
  if (static_cast<int>(expected.size()) != children || expected.back() > parent) {
    std::fprintf(stderr, "bgtask-descendant-scan: setup: %zu children, not %d below pid %d\n",
                 expected.size(), children, static_cast<int>(parent));
    return 2;
  }
  const ScanCount count = scan_while_exiting(parent, expected);
  std::printf("scans %d straddled %d missed %d\n", count.scans, count.straddled, count.missed);
  if (count.missed != 0) {
    return 1;
  }
  return count.straddled == 0 ? 3 : 0;
}
