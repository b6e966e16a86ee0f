#include <bgtask/util/byte_size.hpp>
#include <bgtask/util/terminal_escape.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <string>

namespace bgtask {

namespace {

constexpr std::uint64_t k_max_bytes = std::uint64_t{1} << 62;

struct Unit
{
  std::string_view name; // lowercase
  std::uint64_t multiplier;
};

constexpr std::uint64_t k_kib = std::uint64_t{1} << 10;
constexpr std::uint64_t k_mib = std::uint64_t{1} << 20;
constexpr std::uint64_t k_gib = std::uint64_t{1} << 30;

constexpr std::array<Unit, 11> k_units = {{
  {"", 1},
  {"b", 1},
  {"k", k_kib},
  {"kb", k_kib},
  {"kib", k_kib},
  {"m", k_mib},
  {"mb", k_mib},
  {"mib", k_mib},
  {"g", k_gib},
  {"gb", k_gib},
  {"gib", k_gib},
}};

Failure syntax_error(std::string_view text)
{
  return Failure{"invalid size '" + escape_for_terminal(text, KeepNewlines::no) +
                 "': expected a whole number of bytes with an optional unit (B, K, M, G), "
                 "e.g. 512K or 1G"};
}

Failure too_large(std::string_view text)
{
  return Failure{"invalid size '" + escape_for_terminal(text, KeepNewlines::no) +
                 "': must be at most 2^62 bytes"};
}

char to_lower_ascii(char c)
{
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

bool equals_ignoring_case(std::string_view text, std::string_view lowercase)
{
  return text.size() == lowercase.size() &&
         std::equal(text.begin(), text.end(), lowercase.begin(),
                    [](char a, char b) { return to_lower_ascii(a) == b; });
}

} // namespace

Result<std::uint64_t> parse_byte_size(std::string_view text)
{
  const std::size_t digits_end = std::min(text.find_first_not_of("0123456789"), text.size());
  if (digits_end == 0) {
    return syntax_error(text);
  }
  const std::string_view unit_name = text.substr(digits_end);
  const auto unit = std::find_if(k_units.begin(), k_units.end(), [&](const Unit& candidate) {
    return equals_ignoring_case(unit_name, candidate.name);
  });
  if (unit == k_units.end()) {
    return syntax_error(text);
  }
  const std::uint64_t max_value = k_max_bytes / unit->multiplier;
  std::uint64_t value = 0;
  for (const char c : text.substr(0, digits_end)) {
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (value > (max_value - digit) / 10) {
      return too_large(text);
    }
    value = value * 10 + digit;
  }
  return value * unit->multiplier;
}

} // namespace bgtask
