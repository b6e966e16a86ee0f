#pragma once

namespace bgtask {

// Makes a child process hold a copy of `fd` (and nothing else) until this
// process exits, so that the last close of `fd` happens in the child.
// For an inotify instance with a watch, that last close waits for the kernel
// to retire the watch (an SRCU grace period, about 10 ms at HZ=250), and so
// would this process's exit: with the holder, `wait` returns without that
// delay. The child sleeps and dies with this process (PR_SET_PDEATHSIG).
// Best effort: if the child cannot be made, nothing changes. Call it from a
// single-threaded process.
void hold_until_exit(int fd);

} // namespace bgtask
