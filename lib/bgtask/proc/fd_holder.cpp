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
  // Only async-signal-safe calls from here on.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) {
    ::_exit(0); // the parent is already gone
  }
  // Nothing else stays open: a copy of stdout would keep a reader of the
  // parent's output waiting.
  if (fd > 0) {
    ::close_range(0, static_cast<unsigned int>(fd) - 1, 0);
  }
  ::close_range(static_cast<unsigned int>(fd) + 1, ~0U, 0);
  for (;;) {
    ::pause();
  }
}

} // namespace bgtask
