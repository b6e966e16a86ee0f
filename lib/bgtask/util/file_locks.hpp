#pragma once

#include <bgtask/util/duration.hpp>

#include <functional>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace bgtask {

// How long a command waits for a lock of the task directory (a record's
// update lock, `start.lock`) before it fails (ExitCode::lock_busy) naming the holder: a
// holder keeps one for one durable write, so only a stopped or hung
// process holds one this long.
inline constexpr Milliseconds k_lock_patience{5000};

// Calls `try_take` until it returns true, sleeping 1 ms, then longer (up
// to 20 ms), between tries. False once `patience` passed without it.
bool retry_until_taken(const std::function<bool()>& try_take, Milliseconds patience);

// A lock one descriptor of a process holds (/proc/PID/fdinfo/FD).
struct HeldLock
{
  int fd = -1;
  dev_t dev = 0; // the locked file
  ino_t ino = 0;
  std::string path;         // its path, as /proc/PID/fd/FD names it
  bool flock = false;       // flock(2); else a byte-range lock (OFD or POSIX)
  bool exclusive = false;   // a write lock (LOCK_EX, F_WRLCK); else a shared one
  off_t start = 0;          // byte-range locks: the first byte
  std::optional<off_t> end; // ... the last one; nullopt: to the end of file

  // True if the lock covers `byte` (a flock covers the whole file).
  bool covers(off_t byte) const { return flock || (start <= byte && (!end || *end >= byte)); }
};

// The locks the descriptors of process `pid` hold; empty if it is gone or
// its descriptors cannot be read (another user's process).
std::vector<HeldLock> locks_held_by(int pid);

// The processes holding a lock that covers `byte` on the file open as
// `fd`: those with a descriptor of an open file description that holds it
// (a description shared after fork names each process). Scans /proc; only
// processes this user may inspect are seen.
std::vector<int> lock_holders(int fd, off_t byte);

// "pid 12 (bgtask, stopped)", joined with ", ": who holds a lock, for a
// message; "an unknown process" when `pids` is empty (another user's, or
// one already gone).
std::string describe_lock_holders(const std::vector<int>& pids);

} // namespace bgtask
