#pragma once

#include <bgtask/util/duration.hpp>

#include <cstdint>
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

// This process's CLOCK_BOOTTIME now, with the identity of its clock.
MonotonicMark monotonic_now();

// The time from `earlier` to now, if `earlier` was read from this process's
// clock (same boot, same time namespace); nullopt otherwise.
std::optional<Milliseconds> monotonic_since(const MonotonicMark& earlier);

} // namespace bgtask
