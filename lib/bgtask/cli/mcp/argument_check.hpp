#pragma once

#include <boost/json/object.hpp>

namespace bgtask::mcp {

// Checks a tool's arguments against its input schema (the subset the tools
// use: properties of type string, integer, number, boolean, array of
// strings, object of strings; enum, minimum, maximum, exclusiveMinimum,
// minItems, required). Throws ToolArgumentError naming the argument: an
// unknown one with the nearest known name ("unknown argument 'timeout';
// did you mean 'timeout_s'?"), a missing one, one of another type or out
// of range.
void check_arguments(const boost::json::object& schema, const boost::json::object& args);

} // namespace bgtask::mcp
