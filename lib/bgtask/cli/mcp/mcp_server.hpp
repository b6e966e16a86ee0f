#pragma once

#include <iosfwd>

namespace bgtask {
class TaskDir;
}

namespace bgtask::mcp {

// The protocol versions the server speaks, newest first; an initialize
// asking for another version is answered with the newest.
inline constexpr const char* k_protocol_versions[] = {"2025-11-25", "2025-06-18"};

// Serves the Model Context Protocol on `in`/`out` (newline-delimited
// JSON-RPC 2.0) until `in` ends: initialize, ping, tools/*, tasks/* and
// resources/* (each task is bgtask://task/ID, with subscriptions).
// Holds no state of its own: every call reads the task directory `dir`.
// Only protocol messages are written to `out`.
void serve(const TaskDir& dir, std::istream& in, std::ostream& out);

} // namespace bgtask::mcp
