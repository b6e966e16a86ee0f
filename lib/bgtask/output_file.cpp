#include <bgtask/output_file.hpp>

#include <bgtask/error.hpp>
#include <bgtask/task_dir.hpp>
#include <bgtask/task_files.hpp>
#include <bgtask/terminal_escape.hpp>

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace bgtask {

namespace {

constexpr std::size_t k_chunk = 64 * 1024;

void write_stdout(std::string_view data)
{
  while (!data.empty()) {
    const ssize_t n = ::write(STDOUT_FILENO, data.data(), data.size());
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      throw_system("cannot write to standard output", n < 0 ? errno : EIO);
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
}

// How many bytes at the end of `bytes` start a UTF-8 sequence that is not complete yet.
std::size_t incomplete_utf8_tail(std::string_view bytes)
{
  const std::size_t look = std::min<std::size_t>(3, bytes.size());
  for (std::size_t back = 1; back <= look; ++back) {
    const auto byte = static_cast<unsigned char>(bytes[bytes.size() - back]);
    if ((byte & 0xC0) == 0x80) {
      continue;
    }
    const std::size_t need = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1;
    return need > back ? back : 0;
  }
  return 0;
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
    throw_system("cannot open " + dir.file_path(name), errno);
  }
  struct stat st{};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != ::geteuid()) {
    throw Error(ExitCode::failure,
                "refusing " + dir.file_path(name) + ": not a regular file owned by this user");
  }
  return fd;
}

std::string read_last_lines(int fd, std::size_t lines)
{
  struct stat st{};
  if (lines == 0 || ::fstat(fd, &st) != 0) {
    return {};
  }
  std::string tail;
  off_t end = st.st_size;
  while (end > 0) {
    const auto size = static_cast<std::size_t>(std::min<off_t>(end, k_chunk));
    std::string block(size, '\0');
    if (::pread(fd, block.data(), size, end - static_cast<off_t>(size)) != static_cast<ssize_t>(size)) {
      break;
    }
    end -= static_cast<off_t>(size);
    tail.insert(0, block);
    // The file's final newline ends the last line; it does not start another.
    std::size_t pos = tail.size() - (tail.back() == '\n' ? 1 : 0);
    for (std::size_t found = 0; pos > 0;) {
      --pos;
      if (tail[pos] == '\n' && ++found == lines) {
        return tail.substr(pos + 1);
      }
    }
  }
  return tail;
}

std::uint64_t OutputCopier::copy_from(int fd, std::uint64_t offset)
{
  std::string buffer(k_chunk, '\0');
  for (;;) {
    const ssize_t n = ::pread(fd, buffer.data(), buffer.size(), static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return offset;
    }
    offset += static_cast<std::uint64_t>(n);
    emit(std::string_view(buffer.data(), static_cast<std::size_t>(n)));
  }
}

void OutputCopier::emit(std::string_view bytes)
{
  if (m_escape == Escape::no) {
    write_stdout(bytes);
    return;
  }
  m_pending.append(bytes);
  const std::size_t hold = incomplete_utf8_tail(m_pending);
  write_stdout(escape_for_terminal(std::string_view(m_pending).substr(0, m_pending.size() - hold)));
  m_pending.erase(0, m_pending.size() - hold);
}

void OutputCopier::finish()
{
  if (!m_pending.empty()) {
    write_stdout(escape_for_terminal(m_pending));
    m_pending.clear();
  }
}

} // namespace bgtask
