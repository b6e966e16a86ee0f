#pragma once

namespace bgtask {

// Overwrites, in this process's own argument memory, the value of every
// `--env NAME=VALUE` (and `--env=NAME=VALUE`) before a `--` with asterisks,
// so that /proc/PID/cmdline (world-readable) and `ps` no longer show it, in
// this process and in the supervisor it forks. Call it once the arguments
// were copied. Between exec and this call the values are visible: secrets
// that must never be seen go through `--env NAME` or `--env-file`.
void hide_env_values(int argc, char** argv);

} // namespace bgtask
