#include <bgtask/proc/child_exec.hpp>
#include <bgtask/proc/fd_holder.hpp>

#include <csignal>
#include <sys/prctl.h>
#include <unistd.h>

namespace bgtask {

void hold_until_exit(int fd)
{
  const pid_t parent = ::getpid();
  if (fd < 0 || ::fork() != 0) {
    return;
  }
  // Only async-signal-safe calls from here on, and no allocation.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) {
    ::_exit(0); // the parent is already gone
  }
  // Nothing else stays open: a copy of stdout would keep a reader of the
  // parent's output waiting. Where close_range fails (a kernel before 5.9, a
  // seccomp filter), close_descriptors_except closes them one by one.
  for (int standard = 0; standard < 3; ++standard) {
    if (standard != fd) {
      ::close(standard);
    }
  }
  close_descriptors_except({fd});
  for (;;) {
    ::pause();
  }
}

} // namespace bgtask
