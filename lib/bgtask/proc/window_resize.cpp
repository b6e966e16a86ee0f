#include <bgtask/proc/window_resize.hpp>
#include <bgtask/util/error.hpp>

#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <unistd.h>

namespace bgtask {

namespace {

// Lives as long as the process, as the handler may write at any moment.
int g_resize_pipe[2] = {-1, -1};

void on_resize(int /*sig*/)
{
  const int saved = errno;
  const char byte = 1;
  [[maybe_unused]] const auto n = ::write(g_resize_pipe[1], &byte, 1); // full: already readable
  errno = saved;
}

} // namespace

int catch_window_resize()
{
  if (g_resize_pipe[0] < 0 && ::pipe2(g_resize_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
    throw_system("cannot create the window size pipe", errno);
  }
  struct sigaction action
  {
  };
  action.sa_handler = on_resize;
  action.sa_flags = SA_RESTART;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGWINCH, &action, nullptr);
  return g_resize_pipe[0];
}

void drain_window_resize()
{
  char buffer[64];
  while (g_resize_pipe[0] >= 0 && ::read(g_resize_pipe[0], buffer, sizeof buffer) > 0) {
  }
}

} // namespace bgtask
