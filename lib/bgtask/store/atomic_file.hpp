#pragma once

#include <string_view>

namespace bgtask {

class TaskDir;

// Replaces `name` in `dir` with `content` so that every reader sees either
// the old or the new file, and the new one is durable on return: a 0600
// temp in the same directory (O_EXCL, O_NOFOLLOW), a full write, fsync,
// close, renameat, fsync of the directory. On any failure the temp is
// removed, the old file is left untouched, and Error(failure) names the
// file and the system error. A failed attempt is never retried on the same
// temp (a failed fsync may have dropped the data).
void replace_file_atomically(const TaskDir& dir, std::string_view name, std::string_view content);

// Creates `name` in `dir` with `content` as replace_file_atomically does,
// unless `name` already exists: then nothing is changed and it returns
// false. The temp is moved into place with renameat2(RENAME_NOREPLACE) or,
// where the file system refuses that flag with EINVAL (NFS, FUSE), with
// link(2), which fails with EEXIST just as atomically; the temp is then
// unlinked. Error(failure) names the file, the step and the errno.
bool create_file_atomically(const TaskDir& dir, std::string_view name, std::string_view content);

} // namespace bgtask
