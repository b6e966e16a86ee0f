#pragma once

#include <string>

namespace bgtask {

// `path` made absolute (against the current directory) and lexically
// normalised with Boost.Filesystem: `.` and `..` components and repeated or
// trailing slashes are gone; symbolic links are not resolved (`--cwd ..` is
// the parent as the shell's `cd ..` means it). Throws Error(failure) if the
// current directory cannot be found.
std::string normalized_absolute(const std::string& path);

} // namespace bgtask
