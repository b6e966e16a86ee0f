#pragma once

#include <string>
#include <vector>

namespace bgtask {

// The batch script's last lines, which run `argv` (shell-quoted here):
// where the node has perl (perl-base is part of every Debian system), under
// a small wrapper that starts the command as its child, passes on the
// signals (HUP, INT, QUIT, TERM, USR1, USR2, ALRM; those the job ignores
// stay ignored) that Slurm sent to the batch shell alone, not those it sent
// to every process of the job (a sentinel process tells them apart; see
// docs/slurm.md, Signals), so the command gets each once, and, once the
// command ends, writes
// `$BGTASK_DIR/$BGTASK_ID.outcome.json` (slurm_outcome_file.hpp) through a
// temp file and rename, then ends the way the command did: the same exit
// status, or killed by the same signal (without a core file of its own),
// so Slurm's ExitCode is the command's. Without perl, `exec` as before:
// bgtask then learns the end from the controller alone.
std::string slurm_run_command_lines(const std::vector<std::string>& argv);

} // namespace bgtask
