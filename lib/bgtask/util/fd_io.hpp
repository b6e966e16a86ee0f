#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <sys/types.h>

namespace bgtask {

// Whole transfers through a descriptor, retried on EINTR and short counts.
// The write and sync functions allocate nothing and call only
// async-signal-safe functions: a forked child may use them before exec.

// Writes the `size` bytes at `data`; 0, or the errno of the write that
// failed (EIO for one that wrote nothing). Stops at the first failure.
int write_all(int fd, const void* data, std::size_t size) noexcept;

inline int write_all(int fd, std::string_view data) noexcept
{
  return write_all(fd, data.data(), data.size());
}

// write_all with pwrite(2), from `offset` on; the file offset is not moved.
int pwrite_all(int fd, std::string_view data, off_t offset) noexcept;

// Reads until end of file, or until `text` has `limit` more bytes, appending
// to `text`; 0, or the errno of the read that failed (what came before it is
// kept).
int read_all(int fd, std::string& text, std::size_t limit);

// The file at `path` (a file of /proc or /sys, say) read to its end, or its
// first `max` bytes if it is longer (read_all: short reads continue, EINTR
// is retried); empty if it cannot be opened or a read fails, never a part
// that ends at the failure.
std::string read_small_file(const char* path, std::size_t max);

enum class SyncWhat { data, all };

// fdatasync(2) (SyncWhat::data: the contents and size) or fsync(2)
// (SyncWhat::all), retried on EINTR; 0 or the errno.
int sync_fd(int fd, SyncWhat what) noexcept;

} // namespace bgtask
