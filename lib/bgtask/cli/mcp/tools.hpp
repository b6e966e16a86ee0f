#pragma once

#include <boost/json/object.hpp>

#include <functional>
#include <span>
#include <string>
#include <string_view>

namespace bgtask {
class TaskDir;
}

namespace bgtask::mcp {

class Launcher;

// What a tool call may use beyond its arguments: the launcher that starts
// tasks, the request's cancellation, and its progress reports.
struct ToolContext
{
  Launcher* launcher = nullptr;
  int cancel_fd = -1;                               // readable once the request is cancelled
  std::function<void(const std::string&)> progress; // a note on a long wait; may be empty
};

// A tool's work: the arguments (checked against the input schema first) to
// the structured result. Expected failures throw bgtask::Error (a tool
// result with isError); malformed arguments throw ToolArgumentError (a
// JSON-RPC invalid-params error).
using ToolHandler = boost::json::object (*)(const TaskDir& dir, const boost::json::object& args,
                                            const ToolContext& context);

// What a client may assume of a tool (MCP tool annotations).
struct ToolHints
{
  bool read_only = false;
  bool destructive = false;
  bool idempotent = false;
};

struct Tool
{
  std::string_view name;
  std::string_view title;
  std::string_view description;
  std::string_view input_schema;  // JSON Schema text
  std::string_view output_schema; // JSON Schema text
  ToolHandler handler;
  ToolHints hints;
  bool task_support = false; // may run as an MCP task (execution.taskSupport "optional")
};

// Arguments a tool cannot use: missing, of the wrong type, out of range.
struct ToolArgumentError
{
  std::string message;
};

// Every tool of `bgtask mcp`: start, status, list, output, wait, cancel, events.
std::span<const Tool> all_tools();

// The parsed input schema of `tool`; every one has additionalProperties
// false: an argument it does not name is refused (argument_check.hpp).
boost::json::object input_schema(const Tool& tool);

// The entry of `tools/list` for `tool`: name, description, inputSchema, outputSchema.
boost::json::object describe_tool(const Tool& tool);

} // namespace bgtask::mcp
