#include <bgtask/store/atomic_file.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/store/task_files.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/fd_io.hpp>
#include <bgtask/util/test_seams.hpp>
#include <bgtask/util/unique_fd.hpp>

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace bgtask {

namespace {

enum class IfExists { replace, keep };

// Moves `temp` to `target` unless `target` exists; 0 or the errno (EEXIST
// when it exists). RENAME_NOREPLACE first, link(2) where it is refused.
int move_without_replacing(const TaskDir& dir, const std::string& temp, const std::string& target)
{
  const bool refused_by_seam = test_seam(TestSeam::rename_noreplace_einval) != nullptr;
  if (!refused_by_seam &&
      ::renameat2(dir.fd(), temp.c_str(), dir.fd(), target.c_str(), RENAME_NOREPLACE) == 0) {
    return 0;
  }
  if (!refused_by_seam && errno != EINVAL) {
    return errno;
  }
  if (::linkat(dir.fd(), temp.c_str(), dir.fd(), target.c_str(), 0) != 0) {
    return errno;
  }
  ::unlinkat(dir.fd(), temp.c_str(), 0);
  return 0;
}

thread_local DirSyncBatch* t_batch = nullptr;

// The body of replace_file_atomically and create_file_atomically; false if
// `name` exists and `if_exists` is keep.
bool write_file_atomically(const TaskDir& dir, std::string_view name, std::string_view content,
                           IfExists if_exists)
{
  const std::string temp = temp_file_name(name);
  const auto fail = [&](const char* step, int err) {
    ::unlinkat(dir.fd(), temp.c_str(), 0);
    throw_system(std::string("cannot write ") + dir.file_path(name) + " (" + step + ")", err);
  };

  UniqueFd fd(
    ::openat(dir.fd(), temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd) {
    throw_system("cannot write " + dir.file_path(name) + " (create temp)", errno);
  }
  if (int err = write_all(fd.get(), content)) {
    fail("write", err);
  }
  // A write that reported more than it stored must not reach the record.
  struct stat st
  {
  };
  if (::fstat(fd.get(), &st) != 0 || static_cast<std::size_t>(st.st_size) != content.size()) {
    fail("short write", EIO);
  }
  if (int err = sync_fd(fd.get(), SyncWhat::all)) {
    fail("fsync", err);
  }
  if (int err = fd.close()) {
    fail("close", err);
  }
  const std::string target(name);
  if (if_exists == IfExists::replace) {
    if (::renameat(dir.fd(), temp.c_str(), dir.fd(), target.c_str()) != 0) {
      fail("rename", errno);
    }
  } else if (int err = move_without_replacing(dir, temp, target)) {
    if (err != EEXIST) {
      fail("rename or link", err);
    }
    ::unlinkat(dir.fd(), temp.c_str(), 0);
    return false;
  }
  if (if_exists == IfExists::replace && DirSyncBatch::defer(dir)) {
    return true;
  }
  if (int err = dir.sync()) {
    if (err != EINTR) {
      throw_system("cannot write " + dir.file_path(name) + " (fsync directory)", err);
    }
    dir.sync();
  }
  return true;
}

} // namespace

void replace_file_atomically(const TaskDir& dir, std::string_view name, std::string_view content)
{
  write_file_atomically(dir, name, content, IfExists::replace);
}

bool create_file_atomically(const TaskDir& dir, std::string_view name, std::string_view content)
{
  return write_file_atomically(dir, name, content, IfExists::keep);
}

DirSyncBatch::DirSyncBatch(const TaskDir& dir)
  : m_dir(dir),
    m_outer(t_batch)
{
  t_batch = this;
}

DirSyncBatch::~DirSyncBatch()
{
  if (!m_pending || m_dir.sync() == 0) {
    run_after_sync();
  }
  t_batch = m_outer;
}

void DirSyncBatch::run_after_sync()
{
  auto actions = std::move(m_after_sync);
  m_after_sync.clear();
  for (const auto& action : actions) {
    action();
  }
}

void DirSyncBatch::finish()
{
  if (!m_pending) {
    run_after_sync();
    return;
  }
  m_pending = false;
  int err = m_dir.sync();
  if (err == EINTR) {
    err = m_dir.sync();
  }
  if (err != 0) {
    m_after_sync.clear();
    throw_system("cannot make the records in " + m_dir.path() + " durable (fsync directory)", err);
  }
  run_after_sync();
}

bool DirSyncBatch::defer(const TaskDir& dir)
{
  for (DirSyncBatch* batch = t_batch; batch != nullptr; batch = batch->m_outer) {
    if (batch->m_dir.fd() == dir.fd()) {
      batch->m_pending = true;
      return true;
    }
  }
  return false;
}

bool DirSyncBatch::after_sync(const TaskDir& dir, std::function<void()> action)
{
  for (DirSyncBatch* batch = t_batch; batch != nullptr; batch = batch->m_outer) {
    if (batch->m_dir.fd() == dir.fd()) {
      batch->m_after_sync.push_back(std::move(action));
      return true;
    }
  }
  return false;
}

} // namespace bgtask
