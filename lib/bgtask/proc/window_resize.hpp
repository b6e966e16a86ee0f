#pragma once

namespace bgtask {

// Catches SIGWINCH for the rest of the process's life: each one makes the
// returned descriptor readable (a pipe, non-blocking, close-on-exec), so a
// poll(2) wakes when the terminal is resized. Call it before a terminal
// library would install a handler of its own. Throws Error(failure) if the
// pipe cannot be made.
int catch_window_resize();

// Empties the descriptor catch_window_resize returned, so that it is
// readable again only after the next SIGWINCH.
void drain_window_resize();

} // namespace bgtask
