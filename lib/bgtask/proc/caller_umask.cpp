#include <bgtask/proc/caller_umask.hpp>

#include <optional>
#include <sys/stat.h>

namespace bgtask {

namespace {

std::optional<mode_t> g_caller_umask;

} // namespace

void restrict_umask()
{
  if (!g_caller_umask) {
    g_caller_umask = ::umask(077);
  }
}

mode_t caller_umask()
{
  restrict_umask();
  return *g_caller_umask;
}

} // namespace bgtask
