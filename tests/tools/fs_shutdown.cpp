// bgtask-fs-shutdown MOUNTPOINT: simulates a power cut of the file system
// mounted at MOUNTPOINT (the method of xfstests' `godown`): from this call
// on, nothing more reaches its device, and whatever was not yet durable is
// lost at the next mount. Used by tests/shell/test_crash_power_cut.sh.
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <unistd.h>

#ifndef FS_IOC_SHUTDOWN
#define FS_IOC_SHUTDOWN _IOR('X', 125, std::uint32_t)
#endif

int main(int argc, char** argv)
{
  if (argc != 2) {
    std::fprintf(stderr, "usage: bgtask-fs-shutdown MOUNTPOINT\n");
    return 2;
  }
  const int fd = ::open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  std::uint32_t flags = 2; // FS_GOING_DOWN_NOLOGFLUSH: drop the journal's unwritten part too
  if (fd < 0 || ::ioctl(fd, FS_IOC_SHUTDOWN, &flags) != 0) {
    std::fprintf(stderr, "bgtask-fs-shutdown: %s: %s\n", argv[1], std::strerror(errno));
    return 1;
  }
  ::close(fd);
  return 0;
}
