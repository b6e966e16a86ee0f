#include <bgtask/store/cache_folder.hpp>
#include <bgtask/store/task_dir.hpp>

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>

namespace bgtask {

UniqueFd open_cache_folder(const TaskDir& dir, CreateFolder create)
{
  constexpr const char* folder = ".cache";
  if (create == CreateFolder::yes && ::mkdirat(dir.fd(), folder, 0700) != 0 && errno != EEXIST) {
    return {};
  }
  return open_private_folder(dir, folder, CreateFolder::no);
}

UniqueFd open_private_folder(const TaskDir& dir, const char* folder, CreateFolder create)
{
  if (create == CreateFolder::yes) {
    if (::mkdirat(dir.fd(), folder, 0700) == 0) {
      if (dir.sync() != 0) {
        return {};
      }
    } else if (errno != EEXIST) {
      return {};
    }
  }
  UniqueFd fd = open_at(dir.fd(), folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  struct stat st
  {
  };
  if (!fd || ::fstat(fd.get(), &st) != 0 || st.st_uid != dir.owner() || (st.st_mode & 077) != 0) {
    return {};
  }
  return fd;
}

} // namespace bgtask
