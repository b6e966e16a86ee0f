#pragma once

#include <boost/program_options/options_description.hpp>

#include <string>
#include <string_view>

namespace bgtask {

// The placeholder --help shows for an option's value: the value name the
// option table gave, else the one bgtask uses for that option everywhere
// (DUR for durations, SIZE for byte sizes, N for counts, ID for task IDs,
// ...), never Boost's `arg`.
std::string value_placeholder(const boost::program_options::option_description& option);

// An option's description is its summary (one line), optionally followed by
// a newline and its details: plain text, code in `backquotes`. --help shows
// both, completion the summary, the man page both (cli/option_manual).
std::string_view option_summary(const boost::program_options::option_description& option);

// The details after the summary line, or empty.
std::string_view option_details(const boost::program_options::option_description& option);

// The options as --help lists them under the heading `title:`: `  -f,
// --follow      summary`, one option a line, its details wrapped below it
// (all within 80 columns).
std::string format_option_help(const boost::program_options::options_description& options,
                               std::string_view title = "Options");

} // namespace bgtask
