#pragma once

#include <initializer_list>

namespace bgtask {

// Catches `signals` (e.g. SIGINT, SIGTERM, SIGHUP, SIGQUIT) for the rest of
// the process's life: instead of killing it, a signal is remembered and makes
// interrupt_fd() readable, so a poll(2) that includes that descriptor wakes
// at once, with no race between checking and sleeping. Calling it again adds
// signals. Throws Error(failure) if the pipe cannot be made.
void catch_interrupts(std::initializer_list<int> signals);

// The read end of the pipe the handler writes to (readable once a caught
// signal arrived, and stays readable), or -1 before catch_interrupts.
int interrupt_fd();

// The first caught signal that arrived, or 0.
int interrupt_signal();

// How many caught signals arrived so far (a second Ctrl-C is a count of 2).
int interrupt_count();

// Forgets the signals caught so far, as if none had arrived: interrupt_fd()
// is no longer readable, interrupt_signal() and interrupt_count() are 0.
// For a loop that handed the terminal to a follower that Ctrl-C ended, and
// goes on (`top` after following a task's output).
void forget_interrupts();

} // namespace bgtask
