#include <bgtask/store/owned_file.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/util/fd_io.hpp>
#include <bgtask/util/unique_fd.hpp>

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>

namespace bgtask {

OwnedFile read_owned_file(const TaskDir& dir, std::string_view name, std::size_t max_bytes)
{
  return read_owned_file_at(dir.fd(), dir.owner(), name, max_bytes);
}

OwnedFile read_owned_file_at(int dir_fd, uid_t owner, std::string_view name, std::size_t max_bytes)
{
  OwnedFile file;
  const std::string path(name);
  constexpr int k_flags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK;
  // O_NOATIME: reading a new file would otherwise dirty its inode (relatime).
  UniqueFd fd = open_at(dir_fd, path.c_str(), k_flags | O_NOATIME);
  if (!fd && errno == EPERM) {
    fd = open_at(dir_fd, path.c_str(), k_flags); // not our file: fstat says so below
  }
  struct stat st
  {
  };
  if (!fd || ::fstat(fd.get(), &st) != 0) {
    file.status =
      !fd && errno == ENOENT ? OwnedFile::Status::missing : OwnedFile::Status::cannot_open;
    file.error = errno;
    return file;
  }
  file.uid = st.st_uid;
  if (!S_ISREG(st.st_mode)) {
    file.status = OwnedFile::Status::not_regular;
  } else if (st.st_uid != owner) {
    file.status = OwnedFile::Status::other_owner;
  } else if (static_cast<std::size_t>(st.st_size) > max_bytes) {
    file.status = OwnedFile::Status::too_large;
  } else if (const int err = read_all(fd.get(), file.text, static_cast<std::size_t>(st.st_size));
             err != 0) {
    file.status = OwnedFile::Status::cannot_read;
    file.error = err;
  } else {
    file.status = OwnedFile::Status::ok;
  }
  return file;
}

} // namespace bgtask
