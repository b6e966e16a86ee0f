#pragma once

#include <bgtask/util/result.hpp>
#include <bgtask/util/unique_fd.hpp>

#include <string>

namespace bgtask {

// `start --pty`: the command's stdout and stderr are the slave of a
// pseudo-terminal whose master the supervisor holds; the supervisor copies
// what arrives into ID.output, appending, so the file is what the command
// wrote (no \r added: the terminal does no output processing). The
// terminal is 80x24, echoes nothing and is nobody's controlling terminal
// (stdin stays /dev/null, and /dev/tty cannot be opened). A supervisor
// killed takes the master with it: the command runs on, but its writes
// fail (EIO) and what it prints is lost.
class PtyOutput
{
public:
  static constexpr unsigned short k_columns = 80;
  static constexpr unsigned short k_rows = 24;

  // A new pseudo-terminal copying into `output` (ID.output, O_APPEND; not
  // owned), or why none could be made.
  static Result<PtyOutput> open(int output);

  // The slave for one attempt's command (O_NOCTTY, CLOEXEC), invalid with
  // errno set on failure. The supervisor closes its copy once the command
  // is forked, so that the master hangs up when the command's tree has
  // closed it.
  UniqueFd open_slave();

  // The master, to poll for POLLIN; -1 once no process holds the slave.
  int fd() const { return m_hung_up ? -1 : m_master.get(); }

  // Copies what the master has into the output, without blocking; notes
  // the hang-up once every holder of the slave has closed it.
  void drain();

  // True while some process holds the slave: the command, or what it left
  // behind with its terminal (they are the task's, as holders of ID.output
  // are without --pty). Drains first.
  bool held();

  // Why a write to the output failed (strerror text), or empty.
  const std::string& write_error() const { return m_error; }

private:
  PtyOutput(UniqueFd master, std::string slave_path, int output);

  UniqueFd m_master;
  std::string m_slave_path;
  int m_output;
  bool m_hung_up = true;
  bool m_configured = false;
  std::string m_error;
};

} // namespace bgtask
