#pragma once

#include <bgtask/exec/local/output_keeper.hpp>
#include <bgtask/util/unique_fd.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace bgtask {

// Bounds the disk use of an `ID.output` that the command writes itself: it
// keeps the first half of the limit (the head) and the newest half (the
// tail), and deallocates what lies between with FALLOC_FL_PUNCH_HOLE, so
// offsets in the file stay those of the output stream and readers find the
// dropped range as the file's one hole (SEEK_HOLE/SEEK_DATA). It wakes on an
// inotify IN_MODIFY watch of the file and does no work per line: one fstat
// and at most one fallocate per wake-up. Ranges are aligned to the file's
// block size and punched in steps of a quarter of the tail (at least a
// block, at most k_trim_step bytes); after a
// wake-up it rests 10 ms, so a chatty command wakes it at most 100 times a
// second (what it writes meanwhile is on disk until the next wake-up).
class OutputTrimmer final : public OutputKeeper
{
public:
  // The trimmer for `output` (not owned) with at most `limit` bytes kept,
  // or nullopt if the file system cannot punch holes or inotify is missing.
  static std::optional<OutputTrimmer> create(int output, std::uint64_t limit);

  int fd() const override { return m_inotify.get(); }
  void drain() override;
  std::uint64_t dropped_bytes() const override { return m_hole_end - m_hole_start; }
  std::uint64_t dropped_at() const override;
  const std::string& write_error() const override { return m_error; }
  Milliseconds rest() const override { return Milliseconds{10}; }

  static constexpr std::uint64_t k_trim_step = 64 * 1024;

private:
  OutputTrimmer(UniqueFd inotify, int output, std::uint64_t head, std::uint64_t tail,
                std::uint64_t block);

  // Punches the hole up to what the tail no longer needs.
  void trim();

  UniqueFd m_inotify;
  int m_output;
  std::uint64_t m_tail;
  std::uint64_t m_block;
  std::uint64_t m_step;
  std::uint64_t m_hole_start;
  std::uint64_t m_hole_end;
  std::string m_error;
};

} // namespace bgtask
