#include <bgtask/util/decimal_count.hpp>
#include <bgtask/util/terminal_escape.hpp>

#include <string>

namespace bgtask {

Result<std::size_t> parse_count(std::string_view text, std::string_view option)
{
  std::size_t value = 0;
  const bool digits = !text.empty() && text.size() <= 10 &&
                      text.find_first_not_of("0123456789") == std::string_view::npos;
  if (digits) {
    for (const char c : text) {
      value = value * 10 + static_cast<std::size_t>(c - '0');
    }
  }
  if (!digits || value > 1'000'000'000) {
    return Failure{"invalid value '" + escape_for_terminal(text, KeepNewlines::no) + "' for " +
                   std::string(option) + ": expected a whole number from 0 to 1000000000"};
  }
  return value;
}

} // namespace bgtask
