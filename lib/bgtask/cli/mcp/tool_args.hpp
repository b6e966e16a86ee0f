#pragma once

#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <vector>

namespace bgtask::mcp {

// Typed access to a tool's arguments; a value of the wrong type throws
// ToolArgumentError naming the argument.
std::optional<std::string> opt_string(const boost::json::object& args, const char* name);
std::string required_string(const boost::json::object& args, const char* name);
std::optional<double> opt_number(const boost::json::object& args, const char* name);
std::optional<std::int64_t> opt_integer(const boost::json::object& args, const char* name);
std::optional<bool> opt_bool(const boost::json::object& args, const char* name);
std::optional<std::vector<std::string>> opt_strings(const boost::json::object& args,
                                                    const char* name);

} // namespace bgtask::mcp
