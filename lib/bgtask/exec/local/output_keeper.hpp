#pragma once

#include <bgtask/util/duration.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

namespace bgtask {

// When a keeper looks at the output file's size next, holding no inotify
// instance (a user has 128): k_busy_look after a look that found the file
// grown, the pause doubling after each look that finds it unchanged, up to
// k_idle_look.
class SizeLookPacer
{
public:
  static constexpr Milliseconds k_busy_look{10};
  static constexpr Milliseconds k_idle_look{1000};

  // Notes the size one look found.
  void saw(std::uint64_t size)
  {
    m_pause = size != m_size ? k_busy_look : std::min(m_pause * 2, k_idle_look);
    m_size = size;
  }

  // How long after the last look the next one is due.
  Milliseconds pause() const { return m_pause; }

private:
  Milliseconds m_pause = k_busy_look;
  std::uint64_t m_size = 0;
};

// What the supervisor does to bound a task's `ID.output` while the command
// runs (--max-output); the command always writes the file itself:
// OutputTrimmer punches holes in its middle, OutputCutter (where holes cannot
// be punched) cuts it back to its head. Both on a timer.
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
