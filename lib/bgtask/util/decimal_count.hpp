#pragma once

#include <bgtask/util/result.hpp>

#include <cstddef>
#include <string_view>

namespace bgtask {

// Parses a non-negative decimal count given to `option` (at most 10^9); a
// failure naming the option otherwise.
Result<std::size_t> parse_count(std::string_view text, std::string_view option);

} // namespace bgtask
