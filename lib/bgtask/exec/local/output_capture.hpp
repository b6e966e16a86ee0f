#pragma once

#include <bgtask/exec/local/output_keeper.hpp>
#include <bgtask/util/unique_fd.hpp>

#include <cstdint>
#include <string>

namespace bgtask {

// Copies a command's output from a pipe into its `ID.output`, keeping at
// most a fixed number of bytes. Past the limit, or once writing the file
// fails (ENOSPC, EDQUOT, ...), it keeps reading and counts what it drops, so
// the command never blocks on a full pipe and is never killed for its output.
// The supervisor uses it where the file system cannot punch holes
// (OutputTrimmer): only the head is kept then.
class OutputCapture final : public OutputKeeper
{
public:
  // Reads from `pipe` (made non-blocking here) and appends to `output`,
  // which it does not own. `limit` is the most bytes the file may receive.
  OutputCapture(UniqueFd pipe, int output, std::uint64_t limit);

  // The pipe to poll for input; -1 once the pipe reached end of file.
  int fd() const override { return m_pipe.get(); }

  // Reads whatever the pipe holds now; closes it at end of file (once no
  // process holds its writing end: fd() is -1 from then on).
  void drain() override;

  // Reads from `pipe` (a new attempt's) from now on; what is left in the
  // previous pipe is read first.
  void read_from(UniqueFd pipe);

  bool truncated() const { return m_dropped > 0; }
  std::uint64_t dropped_bytes() const override { return m_dropped; }
  std::uint64_t dropped_at() const override { return m_dropped > 0 ? m_kept : UINT64_MAX; }

  // Why writing the file stopped early (strerror text), or empty.
  const std::string& write_error() const override { return m_write_error; }

private:
  void store(const char* data, std::size_t size);

  UniqueFd m_pipe;
  int m_output;
  std::uint64_t m_room;
  std::uint64_t m_kept = 0;
  std::uint64_t m_dropped = 0;
  std::string m_write_error;
};

} // namespace bgtask
