#include <bgtask/proc/process_info.hpp>
#include <bgtask/proc/session_members.hpp>
#include <bgtask/util/dir_stream.hpp>

#include <cstdlib>
#include <dirent.h>

namespace bgtask {

namespace {

bool session_is_original(const SessionIdentity& session)
{
  if (session.session <= 1) {
    return false;
  }
  const auto leader = read_process_stat(session.session);
  return !leader || leader->start_time == session.leader_start_time;
}

bool is_member(int pid, const ProcessStat& stat, const SessionIdentity& session)
{
  return pid > 1 && stat.state != 'Z' && stat.state != 'X' && stat.session == session.session &&
         process_owned_by(pid, session.uid);
}

} // namespace

bool is_session_member(int pid, const SessionIdentity& session)
{
  const auto stat = read_process_stat(pid);
  return stat && is_member(pid, *stat, session) && session_is_original(session);
}

std::vector<int> session_members(const SessionIdentity& session)
{
  std::vector<int> members;
  if (!session_is_original(session)) {
    return members;
  }
  DirStream proc = DirStream::open("/proc");
  if (!proc) {
    return members;
  }
  while (const dirent* entry = proc.next()) {
    char* end = nullptr;
    const long pid = std::strtol(entry->d_name, &end, 10);
    if (pid <= 1 || *end != '\0' || pid == session.session) {
      continue;
    }
    const auto stat = read_process_stat(static_cast<int>(pid));
    if (stat && is_member(static_cast<int>(pid), *stat, session)) {
      members.push_back(static_cast<int>(pid));
    }
  }
  return members;
}

int signal_session_members(const SessionIdentity& session, const std::vector<int>& pids, int signal)
{
  int signalled = 0;
  for (const int pid : pids) {
    const UniqueFd pidfd = open_pidfd(pid);
    if (pidfd && is_session_member(pid, session) && send_signal(pidfd, signal) == 0) {
      ++signalled;
    }
  }
  return signalled;
}

} // namespace bgtask
