#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstddef>
#include <string>

namespace bgtask {
class TaskDir;
}

// The handlers of the tool table (tools.cpp), each calling the library
// functions its CLI command uses.
namespace bgtask::mcp {

struct ToolContext;

// `start` as the launcher runs it (launcher.hpp); the tool table's entry
// hands its arguments to the launcher.
boost::json::object tool_start(const TaskDir& dir, const boost::json::object& args);
boost::json::object tool_start_launched(const TaskDir& dir, const boost::json::object& args,
                                        const ToolContext& context);
boost::json::object tool_status(const TaskDir& dir, const boost::json::object& args,
                                const ToolContext& context);
boost::json::object tool_list(const TaskDir& dir, const boost::json::object& args,
                              const ToolContext& context);
boost::json::object tool_output(const TaskDir& dir, const boost::json::object& args,
                                const ToolContext& context);
boost::json::object tool_wait(const TaskDir& dir, const boost::json::object& args,
                              const ToolContext& context);
boost::json::object tool_events(const TaskDir& dir, const boost::json::object& args,
                                const ToolContext& context);
boost::json::object tool_cancel(const TaskDir& dir, const boost::json::object& args,
                                const ToolContext& context);

// The last `lines` lines of task `id`'s output as agent text, at most `max_bytes` of it.
boost::json::value output_tail_text(const TaskDir& dir, const std::string& id, std::size_t lines,
                                    std::size_t max_bytes);

} // namespace bgtask::mcp
