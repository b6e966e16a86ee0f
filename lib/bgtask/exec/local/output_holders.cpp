#include <bgtask/exec/local/output_holders.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/store/task_files.hpp>

#include <cerrno>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>

namespace bgtask {

UniqueFd open_held_output(const TaskDir& dir, std::string_view id, int output)
{
  UniqueFd fd(
    ::openat(dir.fd(), output_file_name(id).c_str(), O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC));
  struct stat own
  {
  };
  struct stat opened
  {
  };
  if (fd && ::fstat(fd.get(), &opened) == 0 && ::fstat(output, &own) == 0 &&
      opened.st_dev == own.st_dev && opened.st_ino == own.st_ino &&
      ::flock(fd.get(), LOCK_EX | LOCK_NB) == 0) {
    return fd;
  }
  return UniqueFd(::fcntl(output, F_DUPFD_CLOEXEC, 3));
}

bool output_held_elsewhere(int output)
{
  if (::flock(output, LOCK_EX | LOCK_NB) == 0) {
    ::flock(output, LOCK_UN);
    return false;
  }
  return errno == EWOULDBLOCK;
}

} // namespace bgtask
