#pragma once

#include <bgtask/exec/local/output_keeper.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace bgtask {

// Bounds the disk use of an `ID.output` that the command writes itself: it
// keeps the first half of the limit (the head) and the newest half (the
// tail), and deallocates what lies between with FALLOC_FL_PUNCH_HOLE, so
// offsets in the file stay those of the output stream and readers find the
// dropped range as the file's one hole (SEEK_HOLE/SEEK_DATA). It looks at
// the file's size (one fstat, at most one fallocate) on SizeLookPacer's
// timer. So the file exceeds the limit by at most one punch step plus
// what the command writes between two looks: 10 ms of its output while it
// writes on, 1 s of it in the first burst after a quiet second. Ranges are
// aligned to the file's block size and punched in steps of a quarter of the
// tail (at least a block, at most k_trim_step bytes).
class OutputTrimmer final : public OutputKeeper
{
public:
  // The trimmer for `output` (not owned) with at most `limit` bytes kept,
  // or nullopt if the file system cannot punch holes.
  static std::optional<OutputTrimmer> create(int output, std::uint64_t limit);

  int fd() const override { return -1; }
  void drain() override;
  std::optional<Milliseconds> next_look() const override;
  std::uint64_t dropped_bytes() const override { return m_hole_end - m_hole_start; }
  std::uint64_t dropped_at() const override;
  const std::string& write_error() const override { return m_error; }

  static constexpr std::uint64_t k_trim_step = 64 * 1024;

private:
  OutputTrimmer(int output, std::uint64_t head, std::uint64_t tail, std::uint64_t block);

  // Punches the hole up to what the tail of a file of `size` bytes no
  // longer needs.
  void trim(std::uint64_t size);

  int m_output;
  SizeLookPacer m_pacer;
  std::uint64_t m_tail;
  std::uint64_t m_block;
  std::uint64_t m_step;
  std::uint64_t m_hole_start;
  std::uint64_t m_hole_end;
  std::string m_error;
};

} // namespace bgtask
