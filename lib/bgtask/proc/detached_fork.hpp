#pragma once

#include <functional>

namespace bgtask {

// Runs `child` in a new process that no bgtask process waits for: a fork,
// whose child forks again and exits at once (reaped here), so the
// grandchild is re-parented like any orphan. `child` must not return (if it
// does, the grandchild exits 0). Call it from a single-threaded process.
// False, with errno set, if a fork failed (then nothing runs).
bool fork_detached(const std::function<void()>& child);

// True if this process has one thread (/proc/self/task), so that a fork
// may go on to run anything; false where that cannot be told.
bool is_single_threaded();

} // namespace bgtask
