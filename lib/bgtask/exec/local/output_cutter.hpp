#pragma once

#include <bgtask/exec/local/output_keeper.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace bgtask {

// Bounds an `ID.output` that the command writes itself (O_APPEND) where the
// file system cannot punch holes (OutputTrimmer): it keeps the first `limit`
// bytes (the head) and cuts the file back to them with ftruncate each time
// it finds it longer; the command's next write lands right after the head.
// Nothing stands between the command and its file, so the supervisor's
// death never ends the command (no pipe, no SIGPIPE). Looks on the
// trimmer's timer (SizeLookPacer). Between two looks the file holds, after
// the head, up to that long of the newest output, which the next cut
// removes; bytes written in the instant between a look and its cut are
// dropped uncounted.
class OutputCutter final : public OutputKeeper
{
public:
  // The cutter for `output` (not owned), keeping at most `limit` bytes.
  OutputCutter(int output, std::uint64_t limit);

  int fd() const override { return -1; }
  void drain() override;
  std::optional<Milliseconds> next_look() const override;
  std::uint64_t dropped_bytes() const override { return m_dropped; }
  std::uint64_t dropped_at() const override { return m_dropped > 0 ? m_limit : UINT64_MAX; }
  const std::string& write_error() const override { return m_error; }

private:
  int m_output;
  std::uint64_t m_limit;
  std::uint64_t m_dropped = 0;
  SizeLookPacer m_pacer;
  std::string m_error;
};

} // namespace bgtask
