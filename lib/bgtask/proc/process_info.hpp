#pragma once

#include <bgtask/util/unique_fd.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>

namespace bgtask {

// Facts about one process read from /proc/PID/stat.
struct ProcessStat
{
  char state = '?';
  int ppid = 0;
  int pgid = 0;
  int session = 0;
  std::uint64_t start_time = 0; // clock ticks since boot
};

// Reads /proc/PID/stat (parsing after the last ')'); nullopt if the process
// does not exist or cannot be read. `start_time` is on the boot clock of the
// initial time namespace: the kernel adds the reader's boottime offset
// (time_namespaces(7)), which is taken off again, so a start time recorded
// in one time namespace matches the one read in another.
std::optional<ProcessStat> read_process_stat(int pid);

// True if the real and the effective user of live process `pid` are both
// `uid` (/proc/PID/status); false if it is gone or cannot be read.
bool process_owned_by(int pid, uid_t uid);

// True if `pid` is a live (not zombie) process that started at `start_time`.
bool is_same_process(int pid, std::uint64_t start_time);

// Also requires the process to be in session `session`. A pid reused within
// the same clock tick has the same start time; the session tells a
// supervisor (which leads its own) and its command (which, leading its own
// process group, cannot leave the supervisor's) from such a stranger.
bool is_same_process(int pid, std::uint64_t start_time, int session);

// The kernel's boot id (/proc/sys/kernel/random/boot_id). In a build with
// test seams (test_seams.hpp), BGTASK_TEST_BOOT_ID_FILE may name another
// file to simulate a reboot.
std::string current_boot_id();

// The pid namespace of this process (the inode of /proc/self/ns/pid), as
// recorded in a task's `owner.pid_ns`; 0 if it cannot be read.
std::uint64_t current_pid_namespace();

// True if the pids of pid namespace `ns` mean here what they mean there:
// this process is in `ns` and its /proc shows that namespace (a /proc
// mounted for another one shows other pids). `ns` 0 (a record from before
// namespaces were recorded) counts as this one.
bool sees_pid_namespace(std::uint64_t ns);

// This host's name (uname nodename).
std::string current_host_name();

// Whether `boot_id` (a record owner's, as stored: valid UTF-8) is this
// boot's: then the processes the record names may still run here, whatever
// the host is called now.
bool is_this_boot(std::string_view boot_id);

// Whether a record's owner (its `host` and `boot_id`, as stored: valid
// UTF-8) ran on this machine. A matching boot id proves it whatever the host
// is called now (the name changes with DHCP, cloud-init, or a container's
// UTS namespace); a matching name with another boot id is this machine
// before a reboot. Only a different name *and* boot id is another machine.
bool is_this_machine(std::string_view host, std::string_view boot_id);

// A pidfd for `pid` (pidfd_open(2)), or an invalid fd where unsupported or
// the process is gone. Open it first, then verify identity, then act on it.
UniqueFd open_pidfd(int pid);

// Sends `signal` through `pidfd`; returns 0 or errno.
int send_signal(const UniqueFd& pidfd, int signal);

} // namespace bgtask
