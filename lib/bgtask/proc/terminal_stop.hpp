#pragma once

namespace bgtask {

// Ctrl-Z (SIGTSTP) for a program that must act before it stops, as `run`
// pauses its task: catch_terminal_stops makes SIGTSTP a request instead of
// a stop, which makes terminal_stop_fd() readable; take_terminal_stop()
// reads it, and stop_as_job() then stops this process as SIGTSTP would
// have, for the shell's job control, until a SIGCONT (`fg`, `bg`).

// Catches SIGTSTP for the rest of the process's life. Throws
// Error(failure) if the pipe cannot be made.
void catch_terminal_stops();

// The read end of the request pipe (readable while a request is pending),
// or -1 before catch_terminal_stops.
int terminal_stop_fd();

// True if a Ctrl-Z arrived since the last call; empties the pipe.
bool take_terminal_stop();

// Stops this process as an uncaught SIGTSTP would (the shell prints
// "Stopped" and its prompt), and returns once it is continued; SIGTSTP is
// caught again from then on. Does nothing in an orphaned process group,
// where the kernel drops a stop from the terminal.
void stop_as_job();

} // namespace bgtask
