#include <bgtask/proc/caller_umask.hpp>
#include <bgtask/util/code_layout.hpp>

#include <optional>
#include <sys/stat.h>

namespace bgtask {

namespace {

std::optional<mode_t> g_caller_umask;

} // namespace

BGTASK_START_PATH void restrict_umask()
{
  if (!g_caller_umask) {
    g_caller_umask = ::umask(077);
  }
}

BGTASK_START_PATH mode_t caller_umask()
{
  restrict_umask();
  return *g_caller_umask;
}

} // namespace bgtask
