#include <bgtask/proc/detached_fork.hpp>

#include <cerrno>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace bgtask {

bool fork_detached(const std::function<void()>& child)
{
  const pid_t middle = ::fork();
  if (middle < 0) {
    return false;
  }
  if (middle == 0) {
    const pid_t grandchild = ::fork();
    if (grandchild == 0) {
      child();
      ::_exit(0);
    }
    ::_exit(grandchild < 0 ? 1 : 0);
  }
  int status = 0;
  while (::waitpid(middle, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    errno = EAGAIN;
    return false;
  }
  return true;
}

bool is_single_threaded()
{
  // procfs counts a task folder's links as its threads plus two.
  struct stat st
  {
  };
  return ::stat("/proc/self/task", &st) == 0 && st.st_nlink == 3;
}

} // namespace bgtask
