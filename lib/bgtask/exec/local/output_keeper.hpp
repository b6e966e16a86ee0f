#pragma once

#include <bgtask/util/duration.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace bgtask {

// What the supervisor does to bound a task's `ID.output` while the command
// runs (--max-output): OutputTrimmer (the command writes the file, holes are
// punched in its middle; on a timer) or OutputCapture (a pipe, the head
// kept; on the pipe's readiness).
class OutputKeeper
{
public:
  virtual ~OutputKeeper() = default;

  // The descriptor to poll for POLLIN; -1 when there is nothing to wait for.
  virtual int fd() const = 0;

  // Does the work the readiness of fd(), or its timer, asks for, without
  // blocking.
  virtual void drain() = 0;

  // For a keeper that looks on a timer: how long after this drain() the
  // next one is due; nullopt: drain() only when fd() is ready.
  virtual std::optional<Milliseconds> next_look() const { return std::nullopt; }

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
