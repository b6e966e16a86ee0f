#include <bgtask/exec/local/removal_watch.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/store/task_files.hpp>

#include <array>
#include <sys/inotify.h>
#include <unistd.h>

namespace bgtask {

RemovalWatch::RemovalWatch(const TaskDir& dir, std::string id)
  : m_dir(dir),
    m_id(std::move(id)),
    m_inotify(::inotify_init1(IN_CLOEXEC | IN_NONBLOCK))
{
  if (m_inotify) {
    const std::string path = "/proc/self/fd/" + std::to_string(dir.fd());
    if (::inotify_add_watch(m_inotify.get(), path.c_str(),
                            IN_DELETE | IN_DELETE_SELF | IN_ONLYDIR | IN_EXCL_UNLINK) < 0) {
      m_inotify.close();
    }
  }
}

bool RemovalWatch::removed()
{
  if (!m_inotify) {
    return task_removed(m_dir, m_id);
  }
  // Only the directory's own deletion, the record's, or lost events are
  // worth a look (cleanup deleting other tasks' files is not).
  const std::string record = status_file_name(m_id);
  alignas(inotify_event) std::array<char, 8192> buffer{};
  bool look = false;
  ssize_t n = 0;
  while ((n = ::read(m_inotify.get(), buffer.data(), buffer.size())) > 0) {
    for (ssize_t at = 0; at < n;) {
      const auto* event = reinterpret_cast<const inotify_event*>(buffer.data() + at);
      at += static_cast<ssize_t>(sizeof(inotify_event) + event->len);
      if ((event->mask & (IN_DELETE_SELF | IN_IGNORED | IN_Q_OVERFLOW)) != 0 ||
          (event->len > 0 && record == event->name)) {
        look = true;
      }
    }
  }
  return look && task_removed(m_dir, m_id);
}

} // namespace bgtask
