#pragma once

#include <boost/json/object.hpp>

#include <span>
#include <string_view>

namespace bgtask {
class TaskDir;
}

namespace bgtask::mcp {

// A tool's work: the arguments (checked against nothing but what the
// handler reads) to the structured result. Expected failures throw
// bgtask::Error (a tool result with isError); malformed arguments throw
// ToolArgumentError (a JSON-RPC invalid-params error).
using ToolHandler = boost::json::object (*)(const TaskDir& dir, const boost::json::object& args);

struct Tool
{
  std::string_view name;
  std::string_view description;
  std::string_view input_schema;  // JSON Schema text
  std::string_view output_schema; // JSON Schema text
  ToolHandler handler;
};

// Arguments a tool cannot use: missing, of the wrong type, out of range.
struct ToolArgumentError
{
  std::string message;
};

// Every tool of `bgtask mcp`: start, status, list, output, wait, cancel.
std::span<const Tool> all_tools();

// The entry of `tools/list` for `tool`: name, description, inputSchema, outputSchema.
boost::json::object describe_tool(const Tool& tool);

} // namespace bgtask::mcp
