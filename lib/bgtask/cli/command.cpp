#include <bgtask/cli/command.hpp>

#include <algorithm>

namespace bgtask {

bool is_hidden(const Command& command)
{
  return command.name.starts_with("__");
}

const Command* find_command(std::span<const Command> table, std::string_view name)
{
  const auto it = std::lower_bound(table.begin(), table.end(), name,
                                   [](const Command& c, std::string_view n) { return c.name < n; });
  return it != table.end() && it->name == name ? &*it : nullptr;
}

} // namespace bgtask
