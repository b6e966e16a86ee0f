#include <bgtask/proc/child_exec.hpp>

#include <csignal>
#include <unistd.h>

namespace bgtask {

void reset_child_signals(ProcessGroup group)
{
  if (group == ProcessGroup::own) {
    ::setpgid(0, 0);
  }
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  for (int sig = 1; sig < NSIG; ++sig) {
    ::signal(sig, SIG_DFL);
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

} // namespace bgtask
