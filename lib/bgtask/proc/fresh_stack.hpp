#pragma once

#include <cstddef>

namespace bgtask {

// Runs `entry` on a newly mapped stack of `size` bytes (with a guard page
// below it) and never returns: `entry` must end the process. The stack
// this process ran on before is left behind, and one mapped here earlier
// (by the process this one was forked from) is unmapped. For a process
// forked deep in another's stack, as each queued task's supervisor is by
// the supervisor that hands off to it: without it, every generation of a
// long line of tasks started on top of the last one's frames until the
// stack overflowed. Returns only if the stack cannot be mapped.
void run_on_fresh_stack(void (*entry)(), std::size_t size);

} // namespace bgtask
