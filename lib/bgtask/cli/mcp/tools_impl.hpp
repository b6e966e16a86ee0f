#pragma once

#include <boost/json/object.hpp>

namespace bgtask {
class TaskDir;
}

// The handlers of the tool table (tools.cpp), each calling the library
// functions its CLI command uses.
namespace bgtask::mcp {

boost::json::object tool_start(const TaskDir& dir, const boost::json::object& args);
boost::json::object tool_status(const TaskDir& dir, const boost::json::object& args);
boost::json::object tool_list(const TaskDir& dir, const boost::json::object& args);
boost::json::object tool_output(const TaskDir& dir, const boost::json::object& args);
boost::json::object tool_wait(const TaskDir& dir, const boost::json::object& args);
boost::json::object tool_cancel(const TaskDir& dir, const boost::json::object& args);

} // namespace bgtask::mcp
