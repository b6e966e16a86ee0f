#pragma once

#include <boost/json/object.hpp>

#include <string>
#include <string_view>

namespace bgtask::mcp {

// The short line for people that goes with tool `tool`'s structured
// result `data` as its text content ("task ID failed: exit 2", "12 tasks");
// the data itself is only in structuredContent.
std::string tool_text(std::string_view tool, const boost::json::object& data);

} // namespace bgtask::mcp
