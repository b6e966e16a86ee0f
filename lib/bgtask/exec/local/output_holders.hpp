#pragma once

#include <bgtask/util/unique_fd.hpp>

#include <string_view>

namespace bgtask {

class TaskDir;

// A task is its processes: the command, and every process that still holds
// the command's standard output or error open (a background job that keeps
// writing to ID.output), as nq counts a job. A daemon that closed them or
// sent them elsewhere is not the task's any more.
//
// How the supervisor tells: each attempt's command gets an open file
// description of ID.output of its own, with an flock(2) on it. Whoever
// inherits or dups the descriptor shares that description and so the lock;
// the kernel drops it when the last of them closes it or dies. The
// supervisor's own description conflicts with it while it is held.

// A new description of task `id`'s output (O_WRONLY|O_APPEND), checked to be
// the file `output` is open on, locked exclusively. Where the file cannot be
// reopened or locked: a duplicate of `output` (holders are then not seen, and
// only the command's own exit counts). Invalid if even that fails.
UniqueFd open_held_output(const TaskDir& dir, std::string_view id, int output);

// True while some process holds a description made by open_held_output:
// `output` (the supervisor's own description of the same file) cannot take
// the lock.
bool output_held_elsewhere(int output);

} // namespace bgtask
