#pragma once

#include <chrono>
#include <string>
#include <string_view>

namespace bgtask {

// Task IDs are 12 characters of lowercase Crockford base32
// (`0123456789abcdefghjkmnpqrstvwxyz`): 8 characters of milliseconds since
// 2024-01-01T00:00:00Z (big-endian, so IDs sort by creation time) followed by
// 4 random characters (20 bits from getrandom).
inline constexpr std::size_t k_task_id_length = 12;

// The shortest prefix accepted in place of an ID.
inline constexpr std::size_t k_min_id_prefix_length = 4;

// Returns a new ID for the given creation time that sorts after `newest`
// (the newest ID of the task directory, or empty), so that IDs sort in the
// order of creation within a directory even when the wall clock was set
// back: the time part is then `newest`'s plus 1 ms rather than the clock's.
// (list's order, --limit, @last and each queue's order are the IDs' order.)
std::string make_task_id(std::chrono::system_clock::time_point created,
                         std::string_view newest = {});

// True if `text` is a complete, well-formed ID.
bool is_task_id(std::string_view text);

// True if `text` is a well-formed ID prefix: 4 to 12 characters of the ID
// alphabet (so never `.`, `/`, control bytes or a leading `-`).
bool is_task_id_prefix(std::string_view text);

// What people may type for a task (README, "Concepts"): an ID or a
// prefix of 4+ characters in either case, `@` (the newest task started from
// the current directory) or `@last` (the newest task of the directory).
inline constexpr std::string_view k_newest_here = "@";
inline constexpr std::string_view k_newest = "@last";

// `text` with ASCII letters lowered: IDs are compared case-insensitively.
std::string lowered(std::string_view text);

// Throws Error(usage) with the offending text escaped unless `text` is a
// task reference: is_task_id_prefix(lowered(text)), `@` or `@last`.
void check_task_id_prefix(std::string_view text);

} // namespace bgtask
