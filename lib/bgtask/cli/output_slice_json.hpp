#pragma once

#include <bgtask/exec/output_slice.hpp>
#include <bgtask/util/agent_text.hpp>

#include <boost/json/object.hpp>

#include <cstdint>
#include <string>

namespace bgtask {

// The JSON form of a slice, printed by `output --json` and returned by the
// MCP `output` tool: {id, state, exit_code, text, cursor, offset,
// next_offset, bytes, dropped_bytes, replaced_bytes, removed_bytes,
// total_bytes, complete}. `text` is to_agent_text of the bytes; `cursor`
// the opaque cursor of `next`.
boost::json::object output_slice_to_json(const OutputSlice& slice, Controls controls);

// The offset of `cursor`, a cursor of task `id`; throws Error(usage) with a
// message that says what a cursor is if it is malformed or another task's.
std::uint64_t parse_output_cursor(const std::string& id, const std::string& cursor);

} // namespace bgtask
