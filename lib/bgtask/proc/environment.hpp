#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace bgtask {

// The environment a started program gets: this process's environment with
// `additions` (NAME=VALUE entries) applied. Each name appears once; an
// addition replaces an inherited entry of the same name, and of two
// additions with the same name the later wins. Inherited entries keep their
// order, then come the additions.
std::vector<std::string> merged_environment(const std::vector<std::string>& additions);

// True if `name` may name an environment variable: [A-Za-z_][A-Za-z0-9_]*.
bool is_env_name(std::string_view name);

// BGTASK_BIN (this program's path) and, when PATH does not name its folder
// (cron's PATH), PATH with that folder appended: what a task needs to run
// `bgtask progress` and the like. Empty if /proc/self/exe cannot be read.
std::vector<std::string> own_binary_entries();

} // namespace bgtask
