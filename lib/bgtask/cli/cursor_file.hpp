#pragma once

#include <optional>
#include <string>

namespace bgtask {

// `--cursor-file FILE`, as journalctl keeps one: where the last run of
// `bgtask events` stopped. The file holds one cursor and a newline.

// The cursor in `path`; nullopt if the file does not exist or is empty.
// Throws Error(failure) if it cannot be read.
std::optional<std::string> read_cursor_file(const std::string& path);

// Replaces `path` with `cursor` atomically and durably (a temp next to it,
// fsync, rename, fsync of its directory). Throws Error(failure).
void write_cursor_file(const std::string& path, const std::string& cursor);

} // namespace bgtask
