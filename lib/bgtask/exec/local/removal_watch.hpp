#pragma once

#include <bgtask/util/unique_fd.hpp>

#include <string>

namespace bgtask {

class TaskDir;

// Tells a running supervisor that its task was removed under it: the task
// directory deleted (`rm -rf`, its link count is 0) or the task's own record
// deleted. Such a task can no longer be seen, waited for or cancelled, so
// its supervisor stops the command and exits (RELIABILITY.md).
class RemovalWatch
{
public:
  // Watches `dir` for the deletion of itself and of `id`'s record. Without
  // inotify (no instance left) fd() is -1 and the caller asks removed()
  // every k_recheck_ms instead.
  RemovalWatch(const TaskDir& dir, std::string id);

  // How often to ask removed() when fd() is -1.
  static constexpr int k_recheck_ms = 60000;

  // The descriptor to poll: readable when something may have been removed.
  int fd() const { return m_inotify.get(); }

  // Drains pending events and, if one may be the removal (or always,
  // without inotify), looks: true once the task was removed.
  bool removed();

private:
  const TaskDir& m_dir;
  std::string m_id;
  UniqueFd m_inotify;
};

} // namespace bgtask
