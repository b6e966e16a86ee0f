#pragma once

#include <bgtask/cli/command_line.hpp>
#include <bgtask/core/start_options.hpp>

#include <string>
#include <vector>

namespace bgtask {

// The options of `start`, `run` and `rerun` on the command line, parsed
// into StartOptions.

// Adds --env and --env-file (shared by `start` and `rerun`) to `options`.
void add_env_options(po::options_description& options);

// The K=V entries --env-file and --env ask for, one per name (the last one
// given wins; --env after --env-file): `--env NAME` takes NAME's value from
// this process's environment. Throws Error(usage) for a malformed entry, an
// unreadable file or an unset NAME; messages never show a value.
std::vector<std::string> env_from_options(const po::variables_map& vm);

// Adds the options of `start` to `options`.
void add_start_options(po::options_description& options);

// Adds --array (`start` only: `run` and the MCP tool start one task).
void add_array_option(po::options_description& options);

// The options `vm` holds, with the command after `--`, each value parsed
// (exec/start_plan.hpp checks them against each other). Throws
// Error(usage) for a malformed value.
StartOptions parse_start_options(const po::variables_map& vm, std::vector<std::string> command);

} // namespace bgtask
