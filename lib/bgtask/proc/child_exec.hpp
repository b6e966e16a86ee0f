#pragma once

#include <string>
#include <vector>

namespace bgtask {

// Whether a forked child leaves its parent's process group.
enum class ProcessGroup { inherit, own };

// In a freshly forked child, before exec: optionally become the leader of a
// new process group, then unblock every signal and restore every default
// disposition, so the program starts as it would from a shell.
void reset_child_signals(ProcessGroup group);

// The argv/envp form of `strings`: pointers to each, then nullptr. Valid
// while `strings` lives unchanged.
std::vector<char*> to_c_strings(std::vector<std::string>& strings);

} // namespace bgtask
