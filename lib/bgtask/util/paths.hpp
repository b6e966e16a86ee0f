#pragma once

#include <string>

namespace bgtask {

// The current directory, as getcwd(3) gives it. Throws Error(failure) if it
// cannot be found (removed, or out of this process's reach).
std::string current_directory();

// `path` made absolute (against the current directory) and lexically
// normalised with Boost.Filesystem: `.` and `..` components and repeated or
// trailing slashes are gone; symbolic links are not resolved (`--cwd ..` is
// the parent as the shell's `cd ..` means it). Throws Error(failure) if the
// current directory cannot be found.
std::string normalized_absolute(const std::string& path);

} // namespace bgtask
