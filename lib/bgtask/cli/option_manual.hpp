#pragma once

#include <bgtask/cli/command.hpp>
#include <bgtask/util/result.hpp>

#include <span>
#include <string>
#include <string_view>

namespace bgtask {

// The options in scdoc, as the man page lists them: one entry per option
// (its names and value placeholder in bold and underline, then its summary
// as a sentence and its details, indented), `code` in backquotes in bold.
std::string format_options_scdoc(const po::options_description& options);

// The man page's scdoc source with each marker line `; options: NAME`
// replaced by the declared options of command NAME (without --help), and
// `; options: global` by the global options. Fails for a marker of an
// unknown command, a second marker of one, or a command (not hidden) or the
// global options without a marker.
Result<std::string> expand_option_markers(std::string_view page, std::span<const Command> commands);

} // namespace bgtask
