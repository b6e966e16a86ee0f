#pragma once

#include <bgtask/cli/command.hpp>
#include <bgtask/cli/command_line.hpp>
#include <bgtask/exec/local/pause_control.hpp>

namespace bgtask {

// `pause` and `resume`: parses `args` (task IDs, --json) against `syntax`,
// asks each task's supervisor to stop or continue its process tree
// (pause_control.hpp), and returns once every record confirms it (or the
// task has ended). Prints `ID paused` / `ID resumed` (or the records with
// --json). Exit 0; Error(failure) if a task cannot be paused or its
// supervisor does not confirm within 10 s.
int change_pause(const GlobalOptions& global, const std::vector<std::string>& args,
                 const CommandSyntax& syntax, PauseAction action);

} // namespace bgtask
