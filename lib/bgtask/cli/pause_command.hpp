#pragma once

#include <bgtask/cli/command.hpp>
#include <bgtask/exec/local/pause_control.hpp>

namespace bgtask {

// `pause` and `resume`: given their parsed arguments (task IDs, --json),
// asks each task's supervisor to stop or continue its process tree
// (pause_control.hpp), and returns once every record confirms it (or the
// task has ended). Prints `ID paused` / `ID resumed` (or the records with
// --json). Exit 0; Error(failure) if a task cannot be paused or its
// supervisor does not confirm within 10 s.
int change_pause(const GlobalOptions& global, const CommandArgs& args, PauseAction action);

} // namespace bgtask
