#include <bgtask/core/queue_name.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/terminal_escape.hpp>

#include <algorithm>
#include <string>

namespace bgtask {

namespace {

bool is_name_char(char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-';
}

} // namespace

bool is_queue_name(std::string_view name)
{
  return !name.empty() && name.size() <= k_max_queue_name_length && name.front() != '-' &&
         std::all_of(name.begin(), name.end(), is_name_char);
}

void check_queue_name(std::string_view name)
{
  if (!is_queue_name(name)) {
    throw_usage("invalid queue name '" + escape_for_terminal(name.substr(0, 80), KeepNewlines::no) +
                "': expected 1 to 64 of A-Z a-z 0-9 _ - (not starting with -)");
  }
}

} // namespace bgtask
