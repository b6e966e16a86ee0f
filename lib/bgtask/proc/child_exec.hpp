#pragma once

#include <initializer_list>
#include <string>
#include <vector>

namespace bgtask {

// Whether a forked child leaves its parent's process group.
enum class ProcessGroup { inherit, own };

// In a new child, before exec: optionally become the leader of a new
// process group, then unblock every signal and restore every default
// disposition, so the program starts as it would from a shell.
// Async-signal-safe calls only.
void reset_child_signals(ProcessGroup group);

// The argv/envp form of `strings`: pointers to each, then nullptr. Valid
// while `strings` lives unchanged.
std::vector<char*> to_c_strings(std::vector<std::string>& strings);

// An argv or envp array built before fork (nothing may be allocated between
// fork and exec): owns the strings and the null-terminated pointer array.
class ExecStrings
{
public:
  explicit ExecStrings(std::vector<std::string> strings);
  ExecStrings(const ExecStrings&) = delete;
  ExecStrings& operator=(const ExecStrings&) = delete;

  char* const* get() const { return m_pointers.data(); }

private:
  std::vector<std::string> m_strings;
  std::vector<char*> m_pointers;
};

// Closes every descriptor from 3 up except those in `keep`. Safe between
// fork and exec (no allocation): close_range(2), and where that fails (a
// kernel before 5.9, a seccomp filter), each descriptor listed in
// /proc/self/fd, and without /proc every number below RLIMIT_NOFILE.
void close_descriptors_except(std::initializer_list<int> keep);

} // namespace bgtask
