#include <bgtask/proc/memory_trim.hpp>
#include <bgtask/util/fd_io.hpp>

#include <cstdint>
#include <cstdlib>
#include <malloc.h>
#include <string>
#include <string_view>
#include <sys/mman.h>
#include <vector>

namespace bgtask {

namespace {

// Bounds the read of /proc/self/smaps (a few hundred KiB in practice).
constexpr std::size_t k_max_smaps_bytes = 16 * 1024 * 1024;

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

} // namespace

void release_unused_memory()
{
  // A read-only private file mapping may still hold private copies of pages
  // (relocations made before RELRO turned it read-only): dropping those
  // would lose them, so only mappings without anonymous pages qualify.
  std::string smaps = read_small_file("/proc/self/smaps", k_max_smaps_bytes);
  // Whole lines only: a cut "Anonymous: 12 kB" must not read as 0.
  const auto last_newline = smaps.rfind('\n');
  smaps.resize(last_newline == std::string::npos ? 0 : last_newline + 1);
  std::string_view rest(smaps);
  Mapping mapping;
  std::vector<Mapping> droppable;
  droppable.reserve(64);
  while (!rest.empty()) {
    const auto end_of_line = rest.find('\n');
    const std::string_view line = rest.substr(0, end_of_line);
    rest.remove_prefix(end_of_line == std::string_view::npos ? rest.size() : end_of_line + 1);
    if (parse_header(line, mapping) || !mapping.droppable || !line.starts_with("Anonymous:")) {
      continue;
    }
    if (std::strtoull(std::string(line.substr(10)).c_str(), nullptr, 10) == 0 &&
        mapping.end > mapping.start) {
      droppable.push_back(mapping);
    }
    mapping.droppable = false;
  }
  ::malloc_trim(0);
  // Last, in a loop that touches little code: what runs after the drop
  // faults its pages back in (with the file's pages around them).
  for (const auto& m : droppable) {
    // An address read from /proc/self/smaps: the cast is the point.
    void* start = reinterpret_cast<void*>(m.start); // NOLINT(performance-no-int-to-ptr)
    ::madvise(start, m.end - m.start, MADV_DONTNEED);
    // Fault back single pages, not the 64 KiB around each one.
    ::madvise(start, m.end - m.start, MADV_RANDOM);
  }
}

} // namespace bgtask
