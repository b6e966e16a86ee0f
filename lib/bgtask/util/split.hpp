#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace bgtask {

enum class EmptyParts { keep, drop };

// The parts of `text` between occurrences of `separator`, in order, as
// views into `text`. With EmptyParts::keep, `a,,b` has three parts and ``
// one (empty); with EmptyParts::drop, the empty parts are left out.
std::vector<std::string_view> split(std::string_view text, char separator, EmptyParts empty);

// The non-empty parts of a comma-separated list ("a,b,c", as options such as
// --after and --state take it).
std::vector<std::string> split_list(std::string_view text);

} // namespace bgtask
