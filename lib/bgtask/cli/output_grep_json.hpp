#pragma once

#include <bgtask/exec/output_grep.hpp>

#include <boost/json/object.hpp>

namespace bgtask {

// The JSON form of a search, printed by `output --grep --json` and returned
// by the MCP `output` tool's `grep`: {id, state, exit_code, matches: [{line,
// after_gap, cursor, text, before, after}], total_matches, truncated,
// scanned_bytes, dropped_bytes, cursor}. Texts are agent text (escape
// sequences removed); a match's cursor reads on from the start of its line,
// the last cursor from where the search stopped.
boost::json::object grep_result_to_json(const GrepResult& result);

} // namespace bgtask
