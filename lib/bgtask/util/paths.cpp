#include <bgtask/util/error.hpp>
#include <bgtask/util/paths.hpp>

#include <boost/filesystem/path.hpp>

#include <cerrno>
#include <cstdlib>
#include <memory>
#include <unistd.h>

namespace bgtask {

std::string current_directory()
{
  const std::unique_ptr<char, decltype(&std::free)> cwd(::getcwd(nullptr, 0), &std::free);
  if (!cwd) {
    throw_system("cannot find the current directory", errno);
  }
  return cwd.get();
}

std::string normalized_absolute(const std::string& path)
{
  namespace fs = boost::filesystem;
  const fs::path absolute =
    path.starts_with('/') ? fs::path(path) : fs::path(current_directory()) / path;
  std::string text = absolute.lexically_normal().string();
  // Boost keeps a trailing `/.` for a trailing separator: `/a/b/` -> `/a/b/.`.
  while (text.size() > 1 && (text.ends_with("/.") || text.ends_with("/"))) {
    text.resize(text.ends_with("/.") ? text.size() - 2 : text.size() - 1);
  }
  // POSIX lets a leading `//` mean something else, so Boost keeps it; on Linux it is `/`.
  const auto first = text.find_first_not_of('/');
  if (first != std::string::npos && first > 1) {
    text.erase(0, first - 1);
  }
  return text.empty() || first == std::string::npos ? "/" : text;
}

} // namespace bgtask
