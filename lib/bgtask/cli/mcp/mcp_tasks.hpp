#pragma once

#include <bgtask/core/task_record.hpp>

#include <boost/json/object.hpp>

#include <optional>
#include <string>

namespace bgtask {
class TaskDir;
}

namespace bgtask::mcp {

// MCP Tasks (protocol 2025-11-25) over the task directory: a bgtask task is
// an MCP task of the same ID, whichever server started it, so a server
// started after another died answers for the tasks that one created.
// Failures are RpcFailure (invalid params for an unknown task or cursor).

// The MCP task of a record: taskId, status (working; completed, failed or
// cancelled once final), statusMessage, createdAt, lastUpdatedAt, ttl
// (null: kept until `bgtask cleanup` removes it) and pollInterval.
boost::json::object mcp_task(const TaskRecord& record);

// tasks/get: the MCP task of params.taskId.
boost::json::object get_task(const TaskDir& dir, const boost::json::object& params);

// tasks/list: the tasks of the directory, oldest first, a page at a time
// (params.cursor: the nextCursor of the page before).
boost::json::object list_tasks(const TaskDir& dir, const boost::json::object& params);

// tasks/cancel: cancels as `bgtask cancel` does; refuses a task that has ended.
boost::json::object cancel_task(const TaskDir& dir, const boost::json::object& params);

// tasks/result: blocks until the task has ended, then returns the result of
// the `start` call that made it: a tool result with the exit status, wait
// status, duration and the last lines of output, isError unless it
// succeeded. nullopt if `stop_fd` became readable first.
std::optional<boost::json::object> task_result(const TaskDir& dir,
                                               const boost::json::object& params, int stop_fd);

} // namespace bgtask::mcp
