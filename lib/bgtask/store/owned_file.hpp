#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <sys/types.h>

namespace bgtask {

class TaskDir;

// What reading a file of the task directory that bgtask wrote itself gave
// (read_owned_file).
struct OwnedFile
{
  enum class Status {
    ok,          // `text` holds the contents
    missing,     // no such file
    cannot_open, // open(2) or fstat(2) failed: `error` (ELOOP: a symbolic link)
    not_regular, // a directory, FIFO, device...
    other_owner, // owned by `uid`, not by the directory's owner
    too_large,   // more than the bytes allowed
    cannot_read, // read(2) failed: `error`
  };
  Status status = Status::missing;
  int error = 0;
  uid_t uid = 0;
  std::string text;
};

// Reads `name` in the task directory only if it can be a file bgtask wrote:
// opened with O_NOFOLLOW and O_NONBLOCK (so a planted link or FIFO is
// refused, not followed or waited on) and O_NOATIME where allowed, a regular
// file owned by the directory's owner (TaskDir::owner), of at most
// `max_bytes`. The one way records, queue settings and the fingerprint key
// are read.
OwnedFile read_owned_file(const TaskDir& dir, std::string_view name, std::size_t max_bytes);

// read_owned_file for `name` in the directory `dir_fd` (a folder of the task
// directory, say), whose files must be owned by `owner`.
OwnedFile read_owned_file_at(int dir_fd, uid_t owner, std::string_view name, std::size_t max_bytes);

} // namespace bgtask
