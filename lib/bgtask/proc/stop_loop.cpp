#include <bgtask/proc/stop_loop.hpp>

#include <chrono>
#include <csignal>
#include <sys/wait.h>
#include <thread>

namespace bgtask {

namespace {

constexpr std::chrono::milliseconds k_grace_poll{20};
constexpr std::chrono::milliseconds k_kill_poll{5};
constexpr int k_kill_rounds = 500;

} // namespace

int stop_processes(const ProcessSignal& signal, const std::function<bool()>& alive,
                   std::optional<Milliseconds> grace, ReapChildren reap)
{
  int first = 0;
  if (grace) {
    first = signal(SIGTERM);
    if (first == 0) {
      return 0;
    }
    const auto kill_at = std::chrono::steady_clock::now() + *grace;
    while (std::chrono::steady_clock::now() < kill_at && alive()) {
      std::this_thread::sleep_for(k_grace_poll);
    }
  }
  for (int round = 0; round < k_kill_rounds; ++round) {
    const int killed = signal(SIGKILL);
    if (round == 0 && !grace) {
      first = killed;
    }
    if (killed == 0) {
      break;
    }
    if (reap == ReapChildren::yes) {
      while (::waitpid(-1, nullptr, WNOHANG) > 0) {
      }
    }
    std::this_thread::sleep_for(k_kill_poll);
  }
  return first;
}

} // namespace bgtask
