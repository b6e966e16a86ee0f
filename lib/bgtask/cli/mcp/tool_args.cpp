#include <bgtask/cli/mcp/tool_args.hpp>
#include <bgtask/cli/mcp/tools.hpp>
#include <bgtask/util/json_fields.hpp>

namespace bgtask::mcp {

namespace json = boost::json;

namespace {

// The value of a field reader, or a ToolArgumentError naming the argument.
template <typename T> std::optional<T> argument(Result<std::optional<T>> read)
{
  if (!read) {
    throw ToolArgumentError{"argument " + read.error()};
  }
  return std::move(read).value();
}

} // namespace

std::optional<std::string> opt_string(const json::object& args, const char* name)
{
  return argument(json_optional(args, name, json_as_string));
}

std::string required_string(const json::object& args, const char* name)
{
  auto value = opt_string(args, name);
  if (!value) {
    throw ToolArgumentError{std::string("argument '") + name + "' is required"};
  }
  return *value;
}

std::optional<double> opt_number(const json::object& args, const char* name)
{
  return argument(json_optional(args, name, json_as_number));
}

std::optional<std::int64_t> opt_integer(const json::object& args, const char* name)
{
  const auto d = opt_number(args, name); // JSON gives no integer type: 5 and 5.0 are one
  if (d && (*d != static_cast<double>(static_cast<std::int64_t>(*d)) || *d > 9.0e15)) {
    throw ToolArgumentError{std::string("argument '") + name + "' must be a whole number"};
  }
  return d ? std::optional(static_cast<std::int64_t>(*d)) : std::nullopt;
}

std::optional<bool> opt_bool(const json::object& args, const char* name)
{
  return argument(json_optional(args, name, json_as_bool));
}

std::optional<std::vector<std::string>> opt_strings(const json::object& args, const char* name)
{
  return argument(json_optional(args, name, json_as_strings));
}

} // namespace bgtask::mcp
