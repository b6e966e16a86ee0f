#pragma once

#include <bgtask/exec/condition_wait.hpp>

#include <boost/json/object.hpp>

#include <string_view>

namespace bgtask {

// The name of how a condition wait ended: met, idle, task_ended, gave_up
// or interrupted.
std::string_view condition_end_name(ConditionEnd end);

// The JSON of a condition wait, printed by `wait --json` with a condition
// and returned by the MCP `wait` tool: {id, state, exit_code, end, line
// (until_output: the matching line, else null), cursor (output cursor
// after the line, or of the output's end), quiet_s}.
boost::json::object condition_result_to_json(const ConditionResult& result);

} // namespace bgtask
