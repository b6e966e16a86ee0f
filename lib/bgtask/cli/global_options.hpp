#pragma once

#include <bgtask/cli/command.hpp>

#include <string>
#include <vector>

namespace bgtask {

// The global options, declared once: dispatch parses them, and `bgtask
// --help`, completion and the man page's GLOBAL OPTIONS list them.
po::options_description global_options();

// Takes the global options before the command name out of `args` (leaving
// the command name first) into `global`. Throws a usage Error for an unknown
// option, a missing or bad value, or a value given twice differently.
void take_leading_global_options(std::vector<std::string>& args, GlobalOptions& global);

// Takes the global options that take a value (--dir, --color) out of a
// command's arguments `args`, up to a `--`, into `global`; as above.
void take_trailing_global_options(std::vector<std::string>& args, GlobalOptions& global);

} // namespace bgtask
