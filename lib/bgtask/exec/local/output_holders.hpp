#pragma once

namespace bgtask {

// A task is its processes: the command, and every process that still holds
// the command's standard output or error open (a background job that keeps
// writing to ID.output), as nq counts a job. A daemon that closed them or
// sent them elsewhere is not the task's any more.
//
// How the supervisor tells: each attempt's command opens an open file
// description of ID.output of its own, with an flock(2) on it, and makes it
// its stdout and stderr. Whoever inherits or dups them shares that
// description and so the lock; the kernel drops it when the last of them
// closes it or dies. The supervisor's own description conflicts with it
// while it is held. The supervisor never has the command's description (it
// is made in the command's process, after the fork), so nothing the
// supervisor keeps open can hold it.

// In the command's process, between fork and exec (no allocation): a new
// description of the file `name` in `dir_fd` (O_WRONLY|O_APPEND), checked
// to be the file `output` is open on, locked exclusively. Where it cannot
// be opened or locked: `output` itself (holders are then not seen, and only
// the command's own exit counts).
int open_held_output(int dir_fd, const char* name, int output);

// True while some process holds a description made by open_held_output:
// `output` (the supervisor's own description of the same file) cannot take
// the lock.
bool output_held_elsewhere(int output);

} // namespace bgtask
