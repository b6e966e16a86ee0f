#include <bgtask/exec/local/removal_watch.hpp>
#include <bgtask/store/record_store.hpp>

namespace bgtask {

RemovalWatch::RemovalWatch(const TaskDir& dir, std::string id)
  : m_dir(dir),
    m_id(std::move(id)),
    m_next(Clock::now() + k_interval)
{
}

bool RemovalWatch::removed(Clock::time_point now)
{
  if (now < m_next) {
    return false;
  }
  m_next = now + k_interval;
  return task_removed(m_dir, m_id);
}

} // namespace bgtask
