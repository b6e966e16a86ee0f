#pragma once

#include <bgtask/util/duration.hpp>

#include <functional>
#include <optional>

namespace bgtask {

// Sends a signal to a set of processes and says how many got it.
using ProcessSignal = std::function<int(int sig)>;

// Whether the loop reaps this process's exited children between its KILL
// rounds (a supervisor, whose killed descendants come back to it).
enum class ReapChildren { no, yes };

// The one loop that stops processes. With a `grace`: TERM through `signal`
// (none got it: returns 0 at once), then a look every 20 ms until `alive`
// says no or the grace has passed. Then (at once without a grace) KILL
// through `signal` every 5 ms until none gets it, for at most 2.5 s: a
// process forking between two rounds has a child that escapes one.
// Blocks; returns how many got the first signal.
int stop_processes(const ProcessSignal& signal, const std::function<bool()>& alive,
                   std::optional<Milliseconds> grace, ReapChildren reap);

} // namespace bgtask
