#include <bgtask/proc/interrupts.hpp>
#include <bgtask/util/error.hpp>

#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <unistd.h>

namespace bgtask {

namespace {

// The pipe lives as long as the process (a handler may write to it at any
// moment), so it is never closed.
int g_pipe[2] = {-1, -1};
volatile std::sig_atomic_t g_signal = 0;
volatile std::sig_atomic_t g_count = 0;

void on_interrupt(int sig)
{
  const int saved = errno;
  if (g_signal == 0) {
    g_signal = sig;
  }
  g_count = g_count + 1;
  const char byte = 1;
  [[maybe_unused]] const auto n = ::write(g_pipe[1], &byte, 1); // full pipe: already readable
  errno = saved;
}

} // namespace

void catch_interrupts(std::initializer_list<int> signals)
{
  if (g_pipe[0] < 0 && ::pipe2(g_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
    throw_system("cannot create the interrupt pipe", errno);
  }
  struct sigaction action
  {
  };
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  for (const int sig : signals) {
    sigaddset(&action.sa_mask, sig);
  }
  for (const int sig : signals) {
    ::sigaction(sig, &action, nullptr);
  }
}

int interrupt_fd()
{
  return g_pipe[0];
}

int interrupt_signal()
{
  return g_signal;
}

int interrupt_count()
{
  return g_count;
}

void forget_interrupts()
{
  g_signal = 0;
  g_count = 0;
  char buffer[64];
  while (g_pipe[0] >= 0 && ::read(g_pipe[0], buffer, sizeof buffer) > 0) {
  }
}

} // namespace bgtask
