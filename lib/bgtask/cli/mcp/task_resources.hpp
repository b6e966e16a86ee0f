#pragma once

#include <boost/json/object.hpp>

#include <string>
#include <string_view>

namespace bgtask {
class TaskDir;
}

namespace bgtask::mcp {

// MCP resources over the task directory: each task is the resource
// `bgtask://task/ID`, whose content is its record as `bgtask status --json`
// prints it (application/json). Failures are RpcFailure: invalid params
// for a malformed request, resource_not_found for a URI naming no task.

inline constexpr std::string_view k_task_uri_prefix = "bgtask://task/";

// The URI of task `id`.
std::string task_uri(std::string_view id);

// resources/list: the tasks, oldest first, a page at a time (params.cursor).
boost::json::object list_resources(const TaskDir& dir, const boost::json::object& params);

// resources/templates/list: the one template, bgtask://task/{id}.
boost::json::object list_resource_templates();

// resources/read: the record of the task params.uri names.
boost::json::object read_resource(const TaskDir& dir, const boost::json::object& params);

// The full task ID of params.uri (an ID or a unique prefix after the prefix).
std::string task_of_uri(const TaskDir& dir, const boost::json::object& params);

} // namespace bgtask::mcp
