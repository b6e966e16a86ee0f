#pragma once

#include <bgtask/util/result.hpp>

#include <charconv>
#include <cstddef>
#include <optional>
#include <string_view>

namespace bgtask {

// Parses a non-negative decimal count given to `option` (at most 10^9); a
// failure naming the option otherwise.
Result<std::size_t> parse_count(std::string_view text, std::string_view option);

// `text` as a whole decimal Number (from_chars: no spaces, no `+`; a sign
// only for a signed Number); nullopt if it is not one or does not fit.
template <typename Number> std::optional<Number> parse_decimal(std::string_view text)
{
  Number value{};
  const auto [end, err] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || err != std::errc() || end != text.data() + text.size()) {
    return std::nullopt;
  }
  return value;
}

} // namespace bgtask
