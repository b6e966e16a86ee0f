#include <bgtask/proc/listening_sockets.hpp>
#include <bgtask/util/dir_stream.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

namespace bgtask {

namespace {

constexpr const char* k_listen_state = "0A"; // TCP_LISTEN in /proc/net/tcp

// The inodes of the sockets listening on `port` in one /proc/net table.
void add_listening_inodes(const char* table, std::uint16_t port, std::vector<unsigned long>& out)
{
  std::ifstream in(table);
  std::string line;
  std::getline(in, line); // the header
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string slot, local, remote, state, queues, timer, retransmits, uid, timeout;
    unsigned long inode = 0;
    if (!(fields >> slot >> local >> remote >> state >> queues >> timer >> retransmits >> uid >>
          timeout >> inode)) {
      continue;
    }
    const auto colon = local.rfind(':');
    if (state != k_listen_state || colon == std::string::npos) {
      continue;
    }
    if (std::strtoul(local.c_str() + colon + 1, nullptr, 16) == port && inode != 0) {
      out.push_back(inode);
    }
  }
}

// True if process `pid` has a descriptor open on one of `inodes`.
bool holds_socket(int pid, const std::vector<unsigned long>& inodes)
{
  const std::string fd_dir = "/proc/" + std::to_string(pid) + "/fd";
  DirStream dir = DirStream::open(fd_dir.c_str());
  if (!dir) {
    return false;
  }
  while (const dirent* entry = dir.next()) {
    char target[64];
    const std::string link = fd_dir + "/" + entry->d_name;
    const ssize_t n = ::readlink(link.c_str(), target, sizeof(target) - 1);
    unsigned long inode = 0;
    if (n <= 0) {
      continue;
    }
    target[n] = '\0';
    if (std::sscanf(target, "socket:[%lu]", &inode) == 1 &&
        std::find(inodes.begin(), inodes.end(), inode) != inodes.end()) {
      return true;
    }
  }
  return false;
}

} // namespace

bool listens_on(const std::vector<int>& pids, std::uint16_t port)
{
  std::vector<unsigned long> inodes;
  add_listening_inodes("/proc/net/tcp", port, inodes);
  add_listening_inodes("/proc/net/tcp6", port, inodes);
  if (inodes.empty()) {
    return false;
  }
  return std::any_of(pids.begin(), pids.end(), [&](int pid) { return holds_socket(pid, inodes); });
}

} // namespace bgtask
