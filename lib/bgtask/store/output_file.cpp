#include <bgtask/store/output_file.hpp>
#include <bgtask/store/task_dir.hpp>
#include <bgtask/store/task_files.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/fd_io.hpp>
#include <bgtask/util/terminal_escape.hpp>
#include <bgtask/util/utf8.hpp>

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace bgtask {

namespace {

constexpr std::size_t k_chunk = 64 * 1024;

// Writes all of `data` to stdout; false if its reader went away (EPIPE,
// seen only where SIGPIPE is ignored). Throws Error(failure) on other errors.
bool write_stdout(std::string_view data)
{
  const int err = write_all(STDOUT_FILENO, data);
  if (err == EPIPE) {
    return false;
  }
  if (err != 0) {
    throw_system("cannot write to standard output", err);
  }
  return true;
}

} // namespace

UniqueFd open_output_file(const TaskDir& dir, std::string_view id)
{
  const auto name = output_file_name(id);
  UniqueFd fd(::openat(dir.fd(), name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (!fd) {
    if (errno == ENOENT) {
      return fd;
    }
    if (errno == ELOOP) {
      throw Error(ExitCode::failure, "refusing " + dir.file_path(name) + ": it is a symbolic link");
    }
    throw_system("cannot open " + dir.file_path(name), errno);
  }
  struct stat st
  {
  };
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != ::geteuid()) {
    throw Error(ExitCode::failure,
                "refusing " + dir.file_path(name) + ": not a regular file owned by this user");
  }
  return fd;
}

std::uint64_t missing_output_bytes(int fd, const TaskRecord& record)
{
  struct stat st
  {
  };
  if (!is_final(record.state) || (fd >= 0 && ::fstat(fd, &st) != 0)) {
    return 0;
  }
  const auto size = fd >= 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
  return size < record.output.bytes ? record.output.bytes - size : 0;
}

std::uint64_t followed_output_end(const TaskRecord& record)
{
  const bool cut_back = record.output.retention == OutputRetention::head_only &&
                        record.options.max_output && !is_final(record.state) &&
                        !record.unsupervised;
  return cut_back ? *record.options.max_output : UINT64_MAX;
}

std::string missing_output_warning(const TaskRecord& record, std::uint64_t missing)
{
  return "output of task " + record.id + " is shorter than its record says (" +
         std::to_string(record.output.bytes - missing) + " of " +
         std::to_string(record.output.bytes) + " bytes)";
}

std::optional<OutputGap> find_output_gap(int fd)
{
  struct stat st
  {
  };
  if (::fstat(fd, &st) != 0) {
    return std::nullopt;
  }
  const off_t hole = ::lseek(fd, 0, SEEK_HOLE);
  if (hole < 0 || hole >= st.st_size) {
    return std::nullopt;
  }
  const off_t data = ::lseek(fd, hole, SEEK_DATA);
  const auto end = static_cast<std::uint64_t>(data < 0 ? st.st_size : data);
  return OutputGap{static_cast<std::uint64_t>(hole), end};
}

OutputChunk read_output_chunk(int fd, std::uint64_t offset, std::size_t max_bytes)
{
  OutputChunk chunk;
  chunk.offset = offset;
  for (;;) {
    const auto gap = find_output_gap(fd);
    if (gap && chunk.offset >= gap->start && chunk.offset < gap->end) {
      chunk.skipped += gap->end - chunk.offset;
      chunk.offset = gap->end;
    }
    std::size_t want = max_bytes;
    if (gap && chunk.offset < gap->start) {
      want = static_cast<std::size_t>(std::min<std::uint64_t>(want, gap->start - chunk.offset));
    }
    chunk.data.resize(want);
    ssize_t n = 0;
    do {
      n = ::pread(fd, chunk.data.data(), want, static_cast<off_t>(chunk.offset));
    } while (n < 0 && errno == EINTR);
    chunk.data.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
    // A range punched while it was read reads as zeros: keep what precedes it.
    const auto after = find_output_gap(fd);
    if (chunk.data.empty() || !after || after->start >= chunk.offset + chunk.data.size() ||
        after->end <= chunk.offset) {
      return chunk;
    }
    if (after->start > chunk.offset) {
      chunk.data.resize(static_cast<std::size_t>(after->start - chunk.offset));
      return chunk;
    }
  }
}

std::string dropped_output_marker(std::uint64_t bytes)
{
  return "[bgtask: " + std::to_string(bytes) + " bytes of output dropped here (--max-output)]\n";
}

std::uint64_t find_tail_start(int fd, std::size_t lines, std::uint64_t max_bytes)
{
  struct stat st
  {
  };
  if (::fstat(fd, &st) != 0 || st.st_size <= 0) {
    return 0;
  }
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (lines == 0) {
    return size;
  }
  std::uint64_t floor = size > max_bytes ? size - max_bytes : 0;
  if (const auto gap = find_output_gap(fd)) {
    floor = std::max(floor, gap->end);
  }
  std::uint64_t end = size;
  char last = 0;
  if (::pread(fd, &last, 1, static_cast<off_t>(size - 1)) == 1 && last == '\n') {
    end = size - 1; // the file's final newline ends the last line; it does not start another
  }
  std::string block(k_chunk, '\0');
  std::size_t found = 0;
  while (end > floor) {
    const auto count = static_cast<std::size_t>(std::min<std::uint64_t>(end - floor, k_chunk));
    const std::uint64_t begin = end - count;
    if (::pread(fd, block.data(), count, static_cast<off_t>(begin)) !=
        static_cast<ssize_t>(count)) {
      return end; // the file shrank: show what was searched
    }
    for (std::size_t i = count; i-- > 0;) {
      if (block[i] == '\n' && ++found == lines) {
        return begin + i + 1;
      }
    }
    end = begin;
  }
  return floor;
}

std::string read_last_lines(int fd, std::size_t lines)
{
  std::string tail;
  const std::uint64_t start = find_tail_start(fd, lines, k_max_tail_bytes);
  std::string block(k_chunk, '\0');
  for (std::uint64_t offset = start; tail.size() < k_max_tail_bytes;) {
    const ssize_t n = ::pread(fd, block.data(), block.size(), static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      break;
    }
    tail.append(block.data(), static_cast<std::size_t>(n));
    offset += static_cast<std::uint64_t>(n);
  }
  if (tail.size() > k_max_tail_bytes) {
    tail.resize(k_max_tail_bytes); // the file grew meanwhile
  }
  return tail;
}

std::uint64_t OutputCopier::copy_from(int fd, std::uint64_t offset, std::uint64_t end)
{
  while (!m_reader_gone && offset < end) {
    const OutputChunk chunk = read_output_chunk(
      fd, offset, static_cast<std::size_t>(std::min<std::uint64_t>(k_chunk, end - offset)));
    write(chunk.skipped, chunk.data);
    if (chunk.data.empty()) {
      return chunk.offset;
    }
    offset = chunk.offset + chunk.data.size();
  }
  return offset;
}

void OutputCopier::put(std::string_view bytes)
{
  m_reader_gone = m_reader_gone || !write_stdout(bytes);
}

void OutputCopier::write(std::uint64_t dropped, std::string_view bytes)
{
  if (dropped > 0) {
    emit_marker(dropped);
  }
  emit(bytes);
}

void OutputCopier::emit_marker(std::uint64_t dropped)
{
  finish();
  put((m_last == '\n' ? "" : "\n") + dropped_output_marker(dropped));
  m_last = '\n';
}

void OutputCopier::emit(std::string_view bytes)
{
  if (!bytes.empty()) {
    m_last = bytes.back();
  }
  if (m_escape == Escape::no) {
    put(bytes);
    return;
  }
  m_pending.append(bytes);
  std::size_t hold = incomplete_utf8_tail(m_pending);
  if (m_escape == Escape::render) {
    hold = std::max(hold, incomplete_sgr_tail(m_pending));
  }
  const std::string_view ready = std::string_view(m_pending).substr(0, m_pending.size() - hold);
  put(m_escape == Escape::render ? render_for_terminal(ready) : escape_for_terminal(ready));
  m_pending.erase(0, m_pending.size() - hold);
}

void OutputCopier::finish()
{
  if (!m_pending.empty()) {
    put(m_escape == Escape::render ? render_for_terminal(m_pending)
                                   : escape_for_terminal(m_pending));
    m_pending.clear();
  }
}

std::uint64_t PrefixedLineCopier::copy_from(int fd, std::uint64_t offset, std::uint64_t end)
{
  std::string buffer(k_chunk, '\0');
  while (offset < end) {
    const auto want =
      static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), end - offset));
    const ssize_t n = ::pread(fd, buffer.data(), want, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return offset;
    }
    offset += static_cast<std::uint64_t>(n);
    m_pending.append(buffer.data(), static_cast<std::size_t>(n));
    emit_lines();
  }
  return offset;
}

void PrefixedLineCopier::emit_lines()
{
  std::size_t start = 0;
  for (;;) {
    const auto newline = m_pending.find('\n', start);
    if (newline == std::string::npos) {
      break;
    }
    emit_line(std::string_view(m_pending).substr(start, newline - start));
    start = newline + 1;
  }
  while (m_pending.size() - start >= k_max_prefixed_line) {
    std::size_t piece = k_max_prefixed_line;
    piece -= incomplete_utf8_tail(std::string_view(m_pending).substr(start, piece));
    emit_line(std::string_view(m_pending).substr(start, piece));
    start += piece;
  }
  m_pending.erase(0, start);
}

void PrefixedLineCopier::emit_line(std::string_view line)
{
  std::string text = m_prefix;
  if (m_escape != Escape::no) { // lines behind a prefix: a `\r` would hide it
    text += escape_for_terminal(line);
  } else {
    text += line;
  }
  text += '\n';
  // A follower of several tasks dies of SIGPIPE here when its reader is gone.
  static_cast<void>(write_stdout(text));
}

void PrefixedLineCopier::finish()
{
  if (!m_pending.empty()) {
    emit_line(m_pending);
    m_pending.clear();
  }
}

} // namespace bgtask
