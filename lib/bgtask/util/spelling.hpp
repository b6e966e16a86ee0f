#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

namespace bgtask {

// Edits that turn `a` into `b`: insertions, deletions, substitutions, and a
// swap of two neighbours counted as one (`stauts` is 1 from `status`).
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate nearest to `word`, if it is close enough to be what was
// meant: fewer edits than half of `word`'s length and at most 2, so that a
// short word is never "corrected" into an unrelated one (`rm` is not `run`).
std::optional<std::string_view> nearest_spelling(std::string_view word,
                                                 std::span<const std::string_view> candidates);

} // namespace bgtask
