#pragma once

namespace bgtask {

// Makes sure descriptors 0, 1 and 2 are open: each closed one is opened on
// /dev/null (read-only for 0, write-only for 1 and 2). Call it first thing,
// before anything opens a file, so that no descriptor bgtask opens later
// (the task directory, a lock, an output file) can land on 0-2 and be
// mistaken for, or replaced as, a standard stream. Returns 0, or the errno
// of the open that failed (then the caller should not go on).
int open_missing_standard_streams();

// Points descriptors 0, 1 and 2 at /dev/null (best effort; no allocation,
// so a forked child may call it before it execs).
void redirect_standard_streams_to_null();

} // namespace bgtask
