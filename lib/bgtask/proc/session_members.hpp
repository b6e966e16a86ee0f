#pragma once

#include <cstdint>
#include <sys/types.h>
#include <vector>

namespace bgtask {

// A session that a task's supervisor created (it calls setsid), as it can
// be verified later: its id (the supervisor's pid), the start time of the
// supervisor, and the user whose processes may be members. The command and
// whatever it starts stay in it (a process cannot join another session, and
// only leaves by setsid). The kernel does not reuse the id while the session
// has members; once a process with that pid but another start time exists,
// the session is someone else's.
struct SessionIdentity
{
  int session = 0;
  std::uint64_t leader_start_time = 0;
  uid_t uid = 0;
};

// True if `pid` (> 1) is a live member of `session`, owned by its user
// (real and effective uid), and the session is still the one its leader
// created.
bool is_session_member(int pid, const SessionIdentity& session);

// The live members of `session` (its leader excluded), each verified as
// is_session_member says; none if the session is gone or someone else's.
std::vector<int> session_members(const SessionIdentity& session);

// Sends `signal` to each of `pids` that is still a member of `session`,
// through a pidfd opened before the check (so the pid cannot be reused in
// between). A process that refuses the signal (EPERM) is not ours and is
// skipped. Returns how many were signalled.
int signal_session_members(const SessionIdentity& session, const std::vector<int>& pids,
                           int signal);

} // namespace bgtask
