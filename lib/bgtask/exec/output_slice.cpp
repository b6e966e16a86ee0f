#include <bgtask/exec/output_slice.hpp>
#include <bgtask/exec/task_waiter.hpp>
#include <bgtask/store/output_file.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/util/agent_text.hpp>
#include <bgtask/util/error.hpp>

#include <sys/stat.h>

namespace bgtask {

namespace {

std::uint64_t file_size(int fd)
{
  struct stat st
  {
  };
  if (::fstat(fd, &st) != 0) {
    throw_system("cannot read the output file", errno);
  }
  return static_cast<std::uint64_t>(st.st_size);
}

} // namespace

OutputSlice read_output_slice(const TaskDir& dir, const std::string& id, std::uint64_t from,
                              std::size_t max_bytes)
{
  OutputSlice slice;
  slice.record = load_current_record(dir, id); // first: a final record means all output is written
  const UniqueFd fd = open_output_file(dir, id);
  if (!fd) {
    throw Error(ExitCode::failure, "task " + id + " has no output file");
  }
  if (from > file_size(fd.get())) {
    throw Error(ExitCode::usage, "the cursor lies past the end of task " + id + "'s output");
  }
  OutputChunk chunk = read_output_chunk(fd.get(), from, std::max<std::size_t>(max_bytes, 1));
  slice.total = file_size(fd.get());
  slice.from = from;
  slice.offset = chunk.offset;
  slice.dropped = chunk.skipped;
  const bool at_end = chunk.offset + chunk.data.size() >= slice.total;
  if (!(is_final(slice.record.state) && at_end)) {
    const std::size_t hold = unfinished_text_tail(chunk.data);
    // Hold back only if something remains, or if the read stopped at the
    // end of what is there (more may come); a full slice of one unfinished
    // sequence goes out as it is.
    if (hold < chunk.data.size() || chunk.data.size() < max_bytes) {
      chunk.data.resize(chunk.data.size() - hold);
    }
  }
  slice.data = std::move(chunk.data);
  slice.next = slice.offset + slice.data.size();
  slice.complete = is_final(slice.record.state) && slice.next >= slice.total;
  slice.missing = missing_output_bytes(fd.get(), slice.record);
  return slice;
}

std::uint64_t output_tail_offset(const TaskDir& dir, const std::string& id, std::size_t lines,
                                 std::size_t max_bytes)
{
  const UniqueFd fd = open_output_file(dir, id);
  if (!fd) {
    throw Error(ExitCode::failure, "task " + id + " has no output file");
  }
  return find_tail_start(fd.get(), lines, max_bytes);
}

} // namespace bgtask
