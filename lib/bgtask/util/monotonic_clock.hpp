#pragma once

#include <bgtask/util/duration.hpp>

#include <chrono>
#include <cstdint>
#include <ctime>
#include <optional>
#include <string>

namespace bgtask {

// A reading of CLOCK_BOOTTIME, which, unlike the wall clock, never jumps
// (no `date -s`, no NTP step) and keeps counting through suspend. It is
// only comparable with readings of the same clock: `clock` names it by the
// boot (the kernel's boot id) and the time namespace (whose offsets shift
// CLOCK_BOOTTIME), as "BOOT_ID/time:[INODE]".
struct MonotonicMark
{
  std::string clock;
  std::int64_t ms = 0;
};

// The kernel's boot id (/proc/sys/kernel/random/boot_id), never a test's
// fake one; empty if it cannot be read. Read once per process (a forked
// child inherits it: a boot is a boot).
const std::string& kernel_boot_id();

// This process's CLOCK_BOOTTIME now, with the identity of its clock.
MonotonicMark monotonic_now();

// The time from `earlier` to now, if `earlier` was read from this process's
// clock (same boot, same time namespace); nullopt otherwise.
std::optional<Milliseconds> monotonic_since(const MonotonicMark& earlier);

// std::chrono::steady_clock::now(), read in place (CLOCK_MONOTONIC, the
// clock libstdc++ reads): for a loop that must run in few pages of code, as
// the C++ library's now() lives elsewhere in the binary.
inline std::chrono::steady_clock::time_point steady_now() noexcept
{
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return std::chrono::steady_clock::time_point(std::chrono::seconds(ts.tv_sec) +
                                               std::chrono::nanoseconds(ts.tv_nsec));
}

} // namespace bgtask
