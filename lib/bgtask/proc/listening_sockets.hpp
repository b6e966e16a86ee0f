#pragma once

#include <cstdint>
#include <vector>

namespace bgtask {

// True if one of `pids` holds a TCP socket (IPv4 or IPv6) listening on
// `port`: the inodes of the listening sockets in /proc/net/tcp and
// /proc/net/tcp6 (as this process's network namespace sees them) are
// matched against the `socket:[INODE]` links in /proc/PID/fd. Processes
// that cannot be read (gone, another user's) do not count.
bool listens_on(const std::vector<int>& pids, std::uint16_t port);

} // namespace bgtask
