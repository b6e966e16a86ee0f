#include <bgtask/util/error.hpp>
#include <bgtask/util/paths.hpp>

#include <boost/filesystem/operations.hpp>
#include <boost/filesystem/path.hpp>

namespace bgtask {

std::string normalized_absolute(const std::string& path)
{
  namespace fs = boost::filesystem;
  boost::system::error_code error;
  const fs::path base = fs::current_path(error);
  if (error && !path.starts_with('/')) {
    throw_system("cannot find the current directory", error.value());
  }
  std::string text = fs::absolute(fs::path(path), base).lexically_normal().string();
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
