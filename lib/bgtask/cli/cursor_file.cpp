#include <bgtask/cli/cursor_file.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/fd_io.hpp>
#include <bgtask/util/random_token.hpp>
#include <bgtask/util/unique_fd.hpp>

#include <cerrno>
#include <cstdio>
#include <fcntl.h>
#include <unistd.h>

namespace bgtask {

namespace {

constexpr std::size_t k_max_cursor_bytes = 4096;

std::string parent_of(const std::string& path)
{
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) {
    return ".";
  }
  return slash == 0 ? "/" : path.substr(0, slash);
}

} // namespace

std::optional<std::string> read_cursor_file(const std::string& path)
{
  const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (!fd) {
    if (errno == ENOENT) {
      return std::nullopt;
    }
    throw_system("cannot open the cursor file " + path, errno);
  }
  std::string text;
  if (const int err = read_all(fd.get(), text, k_max_cursor_bytes); err != 0) {
    throw_system("cannot read the cursor file " + path, err);
  }
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) {
    text.pop_back();
  }
  if (text.empty()) {
    return std::nullopt;
  }
  return text;
}

void write_cursor_file(const std::string& path, const std::string& cursor)
{
  const std::string temp = path + "." + random_token().substr(0, 8) + ".tmp";
  {
    const UniqueFd fd(
      ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (!fd) {
      throw_system("cannot write the cursor file " + temp, errno);
    }
    int err = write_all(fd.get(), cursor + "\n");
    if (err == 0) {
      err = sync_fd(fd.get(), SyncWhat::data);
    }
    if (err != 0) {
      ::unlink(temp.c_str());
      throw_system("cannot write the cursor file " + temp, err);
    }
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(temp.c_str());
    throw_system("cannot replace the cursor file " + path, err);
  }
  const UniqueFd parent(::open(parent_of(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (parent) {
    sync_fd(parent.get(), SyncWhat::all);
  }
}

} // namespace bgtask
