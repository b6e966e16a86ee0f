#include <bgtask/exec/local/pty_output.hpp>
#include <bgtask/util/fd_io.hpp>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

namespace bgtask {

Result<PtyOutput> PtyOutput::open(int output)
{
  UniqueFd master(::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC));
  if (!master || ::grantpt(master.get()) != 0 || ::unlockpt(master.get()) != 0) {
    return Failure{std::string("cannot open a pseudo-terminal: ") + std::strerror(errno)};
  }
  std::array<char, 128> name{};
  if (::ptsname_r(master.get(), name.data(), name.size()) != 0 ||
      ::fcntl(master.get(), F_SETFL, O_NONBLOCK) != 0) {
    return Failure{std::string("cannot set up a pseudo-terminal: ") + std::strerror(errno)};
  }
  winsize size{};
  size.ws_col = k_columns;
  size.ws_row = k_rows;
  ::ioctl(master.get(), TIOCSWINSZ, &size);
  return PtyOutput(std::move(master), name.data(), output);
}

PtyOutput::PtyOutput(UniqueFd master, std::string slave_path, int output)
  : m_master(std::move(master)),
    m_slave_path(std::move(slave_path)),
    m_output(output)
{
}

UniqueFd PtyOutput::open_slave()
{
  UniqueFd slave(::open(m_slave_path.c_str(), O_RDWR | O_NOCTTY | O_CLOEXEC));
  if (!slave) {
    return slave;
  }
  if (!m_configured) {
    // What the command writes is kept as written: no \n turned into \r\n,
    // and no echo of anything.
    termios mode{};
    if (::tcgetattr(slave.get(), &mode) == 0) {
      mode.c_oflag &= ~static_cast<tcflag_t>(ONLCR);
      mode.c_lflag &= ~static_cast<tcflag_t>(ECHO | ECHONL);
      ::tcsetattr(slave.get(), TCSANOW, &mode);
    }
    m_configured = true;
  }
  m_hung_up = false;
  return slave;
}

void PtyOutput::drain()
{
  if (m_hung_up) {
    return;
  }
  std::array<char, 16384> buffer{};
  for (;;) {
    const ssize_t got = ::read(m_master.get(), buffer.data(), buffer.size());
    if (got > 0) {
      const int err = write_all(m_output, buffer.data(), static_cast<std::size_t>(got));
      if (err != 0 && m_error.empty()) {
        m_error = std::string("cannot write the output: ") + std::strerror(err);
      }
      continue;
    }
    if (got < 0 && errno == EINTR) {
      continue;
    }
    if (got < 0 && errno == EAGAIN) {
      return;
    }
    m_hung_up = true; // EIO: no process holds the slave any more
    return;
  }
}

bool PtyOutput::held()
{
  drain();
  return !m_hung_up;
}

} // namespace bgtask
