#include <bgtask/store/task_dir.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/paths.hpp>
#include <bgtask/util/terminal_escape.hpp>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace bgtask {

namespace {

std::string shown(const std::string& path)
{
  return escape_for_terminal(path, KeepNewlines::no);
}

[[noreturn]] void refuse(const std::string& path, const std::string& why)
{
  throw_usage("refusing task directory " + shown(path) + ": " + why);
}

std::string env_or_empty(const char* name)
{
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

void make_directories(const std::string& path)
{
  for (std::size_t pos = 1; pos <= path.size(); ++pos) {
    if (pos != path.size() && path[pos] != '/') {
      continue;
    }
    const std::string prefix = path.substr(0, pos);
    if (::mkdir(prefix.c_str(), 0700) != 0 && errno != EEXIST) {
      throw Error(ExitCode::usage, "cannot create task directory " + shown(path) +
                                     (prefix == path ? "" : " (at " + shown(prefix) + ")") + ": " +
                                     std::strerror(errno));
    }
  }
}

// $BGTASK_DIR as cron and scripts set it: only an absolute path is taken
// (nothing expands `~` in a crontab, and a relative one would change with
// the caller's directory).
std::string checked_env_dir(const std::string& dir)
{
  if (dir.front() == '~') {
    throw_usage(
      "BGTASK_DIR='" + shown(dir) +
      "' starts with ~, which nothing expands there (cron and env do not): set "
      "BGTASK_DIR to an absolute path, e.g. BGTASK_DIR=$HOME/" +
      shown(dir.substr(dir.find('/') == std::string::npos ? dir.size() : dir.find('/') + 1)));
  }
  if (dir.front() != '/') {
    throw_usage("BGTASK_DIR='" + shown(dir) +
                "' is a relative path, which would change with the current directory: set "
                "BGTASK_DIR to an absolute path (or use --dir)");
  }
  return normalized_absolute(dir);
}

// ~/.local/state/bgtask, if HOME names an existing directory.
std::string home_default(const std::string& home)
{
  std::string path = normalized_absolute(home + "/.local/state/bgtask");
  struct stat st
  {
  };
  if (home.front() != '/' || ::stat(home.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    throw_usage("the default task directory " + shown(path) + " is under HOME=" + shown(home) +
                ", which is not an existing directory: set BGTASK_DIR (or XDG_STATE_HOME, or "
                "give --dir)");
  }
  return path;
}

std::string octal_mode(mode_t mode)
{
  char buffer[8];
  std::snprintf(buffer, sizeof(buffer), "%04o", static_cast<unsigned>(mode & 07777));
  return buffer;
}

} // namespace

std::string TaskDir::resolve_path(const std::optional<std::string>& dir_option)
{
  if (dir_option) {
    if (dir_option->empty()) {
      throw_usage("--dir must not be empty");
    }
    return normalized_absolute(*dir_option);
  }
  if (auto dir = env_or_empty("BGTASK_DIR"); !dir.empty()) {
    return checked_env_dir(dir);
  }
  if (auto state = env_or_empty("XDG_STATE_HOME"); !state.empty() && state.front() == '/') {
    return normalized_absolute(state + "/bgtask");
  }
  if (auto home = env_or_empty("HOME"); !home.empty()) {
    return home_default(home);
  }
  throw_usage("cannot find a task directory: set --dir, BGTASK_DIR or HOME");
}

TaskDir TaskDir::open(const std::string& path)
{
  struct stat st
  {
  };
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno != ENOENT) {
      refuse(path, std::strerror(errno));
    }
    make_directories(path);
  } else if (S_ISLNK(st.st_mode)) {
    // O_NOFOLLOW|O_DIRECTORY fails with ENOTDIR on a link, so say it here.
    refuse(path, "it is a symbolic link");
  }
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd) {
    if (errno == ELOOP) {
      refuse(path, "it is a symbolic link");
    }
    if (errno == ENOTDIR) {
      refuse(path, "it is not a directory");
    }
    refuse(path, std::strerror(errno));
  }
  if (::fstat(fd.get(), &st) != 0) {
    throw_system("cannot stat task directory " + shown(path), errno);
  }
  if (st.st_uid != ::geteuid()) {
    refuse(path, "owned by uid " + std::to_string(st.st_uid) + ", not by uid " +
                   std::to_string(::geteuid()));
  }
  if ((st.st_mode & 022) != 0) {
    refuse(path, "mode " + octal_mode(st.st_mode) + " is writable by " +
                   ((st.st_mode & 002) != 0 ? "others" : "group"));
  }
  return TaskDir(path, std::move(fd), st.st_uid);
}

std::optional<TaskDir> TaskDir::open_existing(const std::string& path)
{
  struct stat st
  {
  };
  if (::lstat(path.c_str(), &st) != 0 && (errno == ENOENT || errno == ENOTDIR)) {
    return std::nullopt;
  }
  return open(path);
}

std::string TaskDir::file_path(std::string_view name) const
{
  std::string result = m_path;
  if (result.empty() || result.back() != '/') {
    result.push_back('/');
  }
  result.append(name);
  return result;
}

DirStream TaskDir::entries() const
{
  DirStream stream = DirStream::open_at(fd());
  if (!stream) {
    throw_system("cannot read " + path(), errno);
  }
  return stream;
}

int TaskDir::sync() const
{
  return ::fsync(m_fd.get()) == 0 ? 0 : errno;
}

} // namespace bgtask
