#include <bgtask/core/task_id.hpp>
#include <bgtask/store/cache_folder.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/store/task_id_claim.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/fd_io.hpp>
#include <bgtask/util/file_locks.hpp>

#include <cerrno>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace bgtask {

namespace {

// `.cache/newest`: one line, `ID BOOT_ID`.
constexpr const char* k_hint_name = "newest";
constexpr std::size_t k_max_hint_bytes = 256;
// The hint is only a cache: past this wait for its lock (a stopped holder),
// the directory is scanned instead.
constexpr Milliseconds k_hint_patience{1000};

// The hint file of `dir` (created if `create` says so), opened and locked,
// or an invalid descriptor where it cannot be had or trusted.
UniqueFd open_locked_hint(const TaskDir& dir, CreateFolder create)
{
  const UniqueFd folder = open_cache_folder(dir, create);
  if (!folder) {
    return {};
  }
  const int flags = O_RDWR | O_NOFOLLOW | O_CLOEXEC | (create == CreateFolder::yes ? O_CREAT : 0);
  UniqueFd fd = open_at(folder.get(), k_hint_name, flags, 0600);
  if (!fd) {
    return {};
  }
  int err = 0;
  const bool locked = retry_until_taken(
    [&] {
      err = ::flock(fd.get(), LOCK_EX | LOCK_NB) == 0 ? 0 : errno;
      return err != EWOULDBLOCK && err != EINTR;
    },
    k_hint_patience);
  if (!locked || err != 0) {
    return {};
  }
  struct stat st
  {
  };
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != dir.owner() ||
      st.st_nlink != 1 || (st.st_mode & 077) != 0) {
    return {};
  }
  return fd;
}

} // namespace

TaskIdClaim::TaskIdClaim(const TaskDir& dir, std::string boot_id)
  : m_dir(dir),
    m_boot_id(std::move(boot_id)),
    m_hint(open_locked_hint(dir, CreateFolder::no))
{
  const auto hinted = read_hint();
  if (hinted) {
    m_newest = *hinted;
    return;
  }
  m_newest = newest_task_id(dir);
  if (!m_hint && !m_newest.empty()) {
    // Made from the directory's second task on: where inodes are short,
    // the first task's own files come first.
    m_hint = open_locked_hint(dir, CreateFolder::yes);
    if (const auto other = read_hint(); other && *other > m_newest) {
      m_newest = *other; // a concurrent start made the hint first
    }
  }
}

std::optional<std::string> TaskIdClaim::read_hint()
{
  if (!m_hint || m_boot_id.empty()) {
    return std::nullopt;
  }
  char text[k_max_hint_bytes];
  const ssize_t got = ::pread(m_hint.get(), text, sizeof text, 0);
  if (got <= 0) {
    return std::nullopt;
  }
  m_hint_size = static_cast<std::size_t>(got);
  const std::string_view line(text, m_hint_size);
  const std::string_view id = line.substr(0, k_task_id_length);
  if (!is_task_id(id) || line.substr(k_task_id_length) != " " + m_boot_id + "\n") {
    return std::nullopt;
  }
  return std::string(id);
}

std::pair<std::string, TaskLock> TaskIdClaim::next(TimePoint& at)
{
  for (int attempt = 0; attempt < 16; ++attempt) {
    at = now();
    auto id = make_task_id(at, m_newest);
    if (auto lock = TaskLock::create_owned(m_dir, id)) {
      m_newest = id;
      save_hint();
      return {std::move(id), std::move(*lock)};
    }
  }
  throw Error(ExitCode::failure, "cannot allocate a task ID in " + m_dir.path());
}

void TaskIdClaim::save_hint()
{
  if (!m_hint || m_boot_id.empty()) {
    return;
  }
  const std::string line = m_newest + " " + m_boot_id + "\n";
  if (::pwrite(m_hint.get(), line.data(), line.size(), 0) != static_cast<ssize_t>(line.size()) ||
      (m_hint_size > line.size() &&
       ::ftruncate(m_hint.get(), static_cast<off_t>(line.size())) != 0)) {
    // A hint half written is torn: the next start scans.
    m_hint.close();
    return;
  }
  m_hint_size = line.size();
}

} // namespace bgtask
