#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace bgtask {

// A position in one task's output stream, as handed to readers of
// `output --since` and the MCP `output` tool: the byte offset in the
// stream (which retention never shifts: ID.output keeps its offsets) and a
// check value that ties it to the task. It depends on nothing else, so it
// stays valid across restarts of any process. Callers treat it as opaque.
std::string encode_output_cursor(std::string_view id, std::uint64_t offset);

// The offset `cursor` stands for; nullopt if it is malformed or was made
// for another task.
std::optional<std::uint64_t> decode_output_cursor(std::string_view id, std::string_view cursor);

} // namespace bgtask
