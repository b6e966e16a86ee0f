#include <bgtask/proc/terminal_stop.hpp>
#include <bgtask/util/error.hpp>

#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <unistd.h>

namespace bgtask {

namespace {

// The pipe lives as long as the process (the handler may write to it at any
// moment), so it is never closed.
int g_pipe[2] = {-1, -1};
volatile std::sig_atomic_t g_requested = 0;

void on_stop(int /*sig*/)
{
  const int saved = errno;
  g_requested = 1;
  const char byte = 1;
  [[maybe_unused]] const auto n = ::write(g_pipe[1], &byte, 1); // full pipe: already readable
  errno = saved;
}

void install(void (*handler)(int))
{
  struct sigaction action
  {
  };
  action.sa_handler = handler;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGTSTP, &action, nullptr);
}

} // namespace

void catch_terminal_stops()
{
  if (g_pipe[0] < 0 && ::pipe2(g_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
    throw_system("cannot create the terminal stop pipe", errno);
  }
  install(on_stop);
}

int terminal_stop_fd()
{
  return g_pipe[0];
}

bool take_terminal_stop()
{
  char buffer[64];
  while (g_pipe[0] >= 0 && ::read(g_pipe[0], buffer, sizeof(buffer)) > 0) {
  }
  const bool requested = g_requested != 0;
  g_requested = 0;
  return requested;
}

void stop_as_job()
{
  install(SIG_DFL);
  ::raise(SIGTSTP); // returns once continued (SIGCONT)
  install(on_stop);
}

} // namespace bgtask
