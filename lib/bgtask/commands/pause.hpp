#pragma once

#include <bgtask/cli/command.hpp>
#include <bgtask/exec/task_pause.hpp>

namespace bgtask {

// The handler of `pause` and `resume`, given their parsed arguments (task
// IDs, --json): change_pause (exec/task_pause.hpp), then `ID paused` /
// `ID resumed` per task (or the records with --json). Exit 0.
int run_pause_action(const GlobalOptions& global, const CommandArgs& args, PauseAction action);

} // namespace bgtask
