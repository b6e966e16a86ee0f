#include <bgtask/proc/memory_trim.hpp>
#include <bgtask/util/fd_io.hpp>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <malloc.h>
#include <string>
#include <string_view>
#include <sys/mman.h>

namespace bgtask {

namespace {

// Bounds the read of /proc/self/smaps (a few hundred KiB in practice).
constexpr std::size_t k_max_smaps_bytes = 16 * 1024 * 1024;

// How much of the stack below the current frame is kept: the calls that
// follow the trim (madvise, the way back to the caller) run there.
constexpr std::uintptr_t k_stack_margin = 16 * 1024;

// One mapping as /proc/self/smaps describes it.
struct Mapping
{
  std::uintptr_t start = 0;
  std::uintptr_t end = 0;
  bool droppable = false; // read-only and backed by a file
};

// Parses a header line `start-end perms offset dev inode [path]`; false
// for the other lines (`Key: value`).
bool parse_header(std::string_view line, Mapping& mapping)
{
  const auto dash = line.find('-');
  const auto space = line.find(' ');
  if (dash == std::string_view::npos || space == std::string_view::npos || dash > space ||
      line.find(':') < space) {
    return false;
  }
  const std::string range(line.substr(0, space));
  char* after = nullptr;
  mapping.start = std::strtoull(range.c_str(), &after, 16);
  mapping.end = std::strtoull(after + 1, nullptr, 16);
  const auto perms = line.substr(space + 1, 4);
  mapping.droppable = perms.size() == 4 && perms[0] == 'r' && perms[1] == '-' && perms[3] == 'p' &&
                      line.find(" /") != std::string_view::npos;
  return true;
}

// The mappings to give back, found in /proc/self/smaps: read-only private
// file mappings without private copies of pages (a relocation made before
// RELRO turned one read-only would be lost), and the stack below `sp`.
struct Droppable
{
  std::array<Mapping, 128> ranges{};
  std::size_t count = 0;
};

// Fills `out` (fixed size, on the caller's stack: whatever this allocates is
// freed before the caller drops code pages, so freeing it faults nothing).
void find_droppable(std::uintptr_t sp, Droppable& out)
{
  std::string smaps = read_small_file("/proc/self/smaps", k_max_smaps_bytes);
  // Whole lines only: a cut "Anonymous: 12 kB" must not read as 0.
  const auto last_newline = smaps.rfind('\n');
  smaps.resize(last_newline == std::string::npos ? 0 : last_newline + 1);
  std::string_view rest(smaps);
  Mapping mapping;
  while (!rest.empty() && out.count < out.ranges.size()) {
    const auto end_of_line = rest.find('\n');
    const std::string_view line = rest.substr(0, end_of_line);
    rest.remove_prefix(end_of_line == std::string_view::npos ? rest.size() : end_of_line + 1);
    if (parse_header(line, mapping)) {
      if (line.ends_with(" [stack]") && sp > mapping.start + k_stack_margin) {
        // Below the frames in use: what a deeper call once wrote. Pages
        // given back read as zeros when the stack grows into them again.
        const std::uintptr_t end = (sp - k_stack_margin) & ~(std::uintptr_t{4095});
        if (end > mapping.start) {
          out.ranges[out.count++] = Mapping{mapping.start, end, true};
        }
      }
      continue;
    }
    if (!mapping.droppable || !line.starts_with("Anonymous:")) {
      continue;
    }
    if (std::strtoull(std::string(line.substr(10)).c_str(), nullptr, 10) == 0 &&
        mapping.end > mapping.start) {
      out.ranges[out.count++] = mapping;
    }
    mapping.droppable = false;
  }
}

} // namespace

// `hot`, like the supervisor's waiting loop (supervision.cpp): what runs
// after the drop is what faults back in.
[[gnu::hot]] void release_unused_memory()
{
  Droppable droppable;
  const int here = 0;
  find_droppable(reinterpret_cast<std::uintptr_t>(&here), droppable);
  ::malloc_trim(0);
  // Last, in a loop that touches little code.
  for (std::size_t i = 0; i < droppable.count; ++i) {
    const auto& m = droppable.ranges[i];
    // An address read from /proc/self/smaps: the cast is the point.
    void* start = reinterpret_cast<void*>(m.start); // NOLINT(performance-no-int-to-ptr)
    ::madvise(start, m.end - m.start, MADV_DONTNEED);
  }
}

} // namespace bgtask
