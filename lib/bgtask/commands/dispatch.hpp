#pragma once

namespace bgtask {

// The whole command line: parses global options, dispatches to a command
// from the command table, turns an Error into `bgtask: error: ...` on
// stderr and its exit code. Returns the process exit code.
int run_cli(int argc, char** argv);

} // namespace bgtask
