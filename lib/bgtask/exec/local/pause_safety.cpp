#include <bgtask/exec/local/pause_safety.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/util/file_locks.hpp>

#include <fcntl.h>
#include <sys/stat.h>

namespace bgtask {

namespace {

// The byte of `ID.lock` the update lock covers (store/task_lock.cpp).
constexpr off_t k_update_lock_byte = 1;

bool same_file(const struct stat& a, const struct stat& b)
{
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

} // namespace

std::vector<int> directory_lock_holders(const std::vector<int>& pids, const TaskDir& dir)
{
  std::vector<int> holders;
  struct stat top
  {
  };
  struct stat cache
  {
  };
  if (::fstat(dir.fd(), &top) != 0) {
    return holders;
  }
  const bool has_cache = ::fstatat(dir.fd(), ".cache", &cache, AT_SYMLINK_NOFOLLOW) == 0;
  for (const int pid : pids) {
    for (const auto& lock : locks_held_by(pid)) {
      const auto slash = lock.path.rfind('/');
      struct stat parent
      {
      };
      if (!lock.exclusive || !lock.covers(k_update_lock_byte) || lock.dev != top.st_dev ||
          slash == std::string::npos ||
          ::stat(lock.path.substr(0, slash == 0 ? 1 : slash).c_str(), &parent) != 0) {
        continue;
      }
      // A command's hold on its own `ID.output` is no lock anyone waits for.
      if ((same_file(parent, top) && lock.path.ends_with(".lock")) ||
          (has_cache && same_file(parent, cache))) {
        holders.push_back(pid);
        break;
      }
    }
  }
  return holders;
}

} // namespace bgtask
