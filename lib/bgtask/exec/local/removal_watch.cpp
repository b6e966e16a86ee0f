#include <bgtask/exec/local/removal_watch.hpp>
#include <bgtask/store/record_store.hpp>
#include <bgtask/store/task_files.hpp>
#include <bgtask/util/monotonic_clock.hpp>

namespace bgtask {

RemovalWatch::RemovalWatch(const TaskDir& dir, const std::string& id)
  : m_dir(dir),
    m_status_name(status_file_name(id)),
    m_next(steady_now() + k_interval)
{
}

bool RemovalWatch::removed(Clock::time_point now)
{
  if (now < m_next) {
    return false;
  }
  m_next = now + k_interval;
  return task_removed(m_dir, m_status_name);
}

} // namespace bgtask
