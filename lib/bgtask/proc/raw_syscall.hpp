#pragma once

#include <cerrno>
#include <cstddef>
#include <type_traits>
#include <unistd.h>

// System calls that leave errno alone, for the command's process before its
// exec: it shares the supervisor's memory (clone with CLONE_VM), and with it
// the supervisor's errno, which a failed libc call there would overwrite
// while the supervisor reads it.
namespace bgtask::raw {

// Whether raw::syscall is the system call instruction itself (x86-64 and
// AArch64); elsewhere it is syscall(2), which sets errno, and the command's
// process is forked instead.
#if defined(__x86_64__) || defined(__aarch64__)
inline constexpr bool k_errno_free = true;
#else
inline constexpr bool k_errno_free = false;
#endif

inline long call6(long number, long a, long b, long c, long d, long e, long f) noexcept
{
#if defined(__x86_64__)
  long result = 0;
  register long r10 __asm__("r10") = d;
  register long r8 __asm__("r8") = e;
  register long r9 __asm__("r9") = f;
  __asm__ volatile("syscall"
                   : "=a"(result)
                   : "a"(number), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                   : "rcx", "r11", "memory");
  return result;
#elif defined(__aarch64__)
  register long x8 __asm__("x8") = number;
  register long x0 __asm__("x0") = a;
  register long x1 __asm__("x1") = b;
  register long x2 __asm__("x2") = c;
  register long x3 __asm__("x3") = d;
  register long x4 __asm__("x4") = e;
  register long x5 __asm__("x5") = f;
  __asm__ volatile("svc 0"
                   : "+r"(x0)
                   : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
                   : "memory", "cc");
  return x0;
#else
  const long result = ::syscall(number, a, b, c, d, e, f);
  return result == -1 ? -errno : result;
#endif
}

template <typename T> long as_argument(T value) noexcept
{
  if constexpr (std::is_null_pointer_v<T>) {
    return 0;
  } else if constexpr (std::is_pointer_v<T>) {
    return reinterpret_cast<long>(value);
  } else {
    return static_cast<long>(value);
  }
}

// System call `number` (SYS_...) with up to six arguments: its result, or
// -errno when it failed.
template <typename... Args> long syscall(long number, Args... args) noexcept
{
  static_assert(sizeof...(Args) <= 6);
  long values[6] = {as_argument(args)...};
  return call6(number, values[0], values[1], values[2], values[3], values[4], values[5]);
}

// Retries a call interrupted by a signal.
template <typename... Args> long syscall_restarting(long number, Args... args) noexcept
{
  long result = 0;
  while ((result = syscall(number, args...)) == -EINTR) {
  }
  return result;
}

// Writes all of `size` bytes to `fd`: 0, or -errno.
long write_all(int fd, const void* data, std::size_t size) noexcept;

// dup2(2): `from` onto `to` (dup3 where they differ, which AArch64 needs).
long dup2(int from, int to) noexcept;

// Ends this process with `code` (exit_group).
[[noreturn]] void exit(int code) noexcept;

} // namespace bgtask::raw
