#pragma once

#include <bgtask/util/dir_stream.hpp>
#include <bgtask/util/unique_fd.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>

namespace bgtask {

// The task directory: resolved once, checked once, then used only through
// its descriptor (openat/renameat/unlinkat relative to fd()).
class TaskDir
{
public:
  // Picks the directory: `dir_option`, else $BGTASK_DIR, else
  // $XDG_STATE_HOME/bgtask (ignored unless absolute), else
  // $HOME/.local/state/bgtask. Throws Error(usage) if none can be formed.
  static std::string resolve_path(const std::optional<std::string>& dir_option);

  // Opens `path`, creating it (and missing parents) with mode 0700. Throws
  // Error(usage) naming the path and the problem when it is a symlink, not a
  // directory, owned by another user, or writable by group or others.
  static TaskDir open(const std::string& path);

  // Opens `path` as open() does if it exists; nullopt if it (or a parent)
  // does not, creating nothing.
  static std::optional<TaskDir> open_existing(const std::string& path);

  int fd() const { return m_fd.get(); }
  const std::string& path() const { return m_path; }
  // The directory's owner: this process's effective uid, checked by open(),
  // and so the owner every record in it must have.
  uid_t owner() const { return m_owner; }

  // `path()/name`, for messages and for the `output.path` field.
  std::string file_path(std::string_view name) const;

  // A stream over the directory's entries (through a descriptor of its own).
  // Throws Error(failure) naming the directory when it cannot be read.
  DirStream entries() const;

  // fsync(2) of the directory itself; returns 0 or errno.
  int sync() const;

private:
  TaskDir(std::string path, UniqueFd fd, uid_t owner)
    : m_path(std::move(path)),
      m_fd(std::move(fd)),
      m_owner(owner)
  {
  }

  std::string m_path;
  UniqueFd m_fd;
  uid_t m_owner;
};

} // namespace bgtask
