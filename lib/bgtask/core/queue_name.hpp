#pragma once

#include <cstddef>
#include <string_view>

namespace bgtask {

inline constexpr std::size_t k_max_queue_name_length = 64;

// True for 1 to 64 characters of `A-Z a-z 0-9 _ -` that do not start with `-`.
bool is_queue_name(std::string_view name);

// Throws Error(usage) with the offending text escaped unless is_queue_name(name).
void check_queue_name(std::string_view name);

} // namespace bgtask
