#pragma once

#include <bgtask/util/duration.hpp>

#include <cstdint>
#include <string>

namespace bgtask {

// What the supervisor does to bound a task's `ID.output` while the command
// runs (--max-output): OutputTrimmer (the command writes the file, holes are
// punched in its middle) or OutputCapture (a pipe, the head kept).
class OutputKeeper
{
public:
  virtual ~OutputKeeper() = default;

  // The descriptor to poll for POLLIN; -1 when there is nothing to wait for.
  virtual int fd() const = 0;

  // Does the work the readiness of fd() asks for, without blocking.
  virtual void drain() = 0;

  // How long fd() may be left unpolled after drain(): a pause that bounds
  // how often a chatty command wakes the supervisor.
  virtual Milliseconds rest() const { return Milliseconds{0}; }

  // Called once the command has exited: the last round of work.
  virtual void finish() { drain(); }

  // Bytes of output that are no longer (or never were) in the file.
  virtual std::uint64_t dropped_bytes() const = 0;

  // Where the dropped bytes begin in the output stream; UINT64_MAX if none.
  virtual std::uint64_t dropped_at() const = 0;

  // Why bounding stopped early (strerror text), or empty.
  virtual const std::string& write_error() const = 0;
};

} // namespace bgtask
