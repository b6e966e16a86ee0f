#include <bgtask/proc/raw_syscall.hpp>

#include <fcntl.h>
#include <sys/syscall.h>

namespace bgtask::raw {

long write_all(int fd, const void* data, std::size_t size) noexcept
{
  const auto* bytes = static_cast<const char*>(data);
  while (size > 0) {
    const long wrote = syscall_restarting(SYS_write, fd, bytes, size);
    if (wrote < 0) {
      return wrote;
    }
    bytes += wrote;
    size -= static_cast<std::size_t>(wrote);
  }
  return 0;
}

long dup2(int from, int to) noexcept
{
  if (from == to) {
    return syscall(SYS_fcntl, from, F_GETFD) < 0 ? -EBADF : to;
  }
  return syscall(SYS_dup3, from, to, 0);
}

void exit(int code) noexcept
{
  for (;;) {
    syscall(SYS_exit_group, code);
  }
}

} // namespace bgtask::raw
