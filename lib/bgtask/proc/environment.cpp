#include <bgtask/proc/environment.hpp>
#include <bgtask/util/split.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string_view>
#include <unistd.h>

extern char** environ;

namespace bgtask {

namespace {

// "NAME=" of an entry (the whole entry if it has no '=').
std::string_view name_of(std::string_view entry)
{
  const auto equals = entry.find('=');
  return equals == std::string_view::npos ? entry : entry.substr(0, equals + 1);
}

} // namespace

bool is_env_name(std::string_view name)
{
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name.front())) != 0) {
    return false;
  }
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
  });
}

std::vector<std::string> merged_environment(const std::vector<std::string>& additions)
{
  const auto added_later = [&](std::string_view name, std::size_t from) {
    return std::any_of(additions.begin() + static_cast<long>(from), additions.end(),
                       [&](const std::string& add) { return name_of(add) == name; });
  };
  std::vector<std::string> env;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    if (!added_later(name_of(*entry), 0)) {
      env.emplace_back(*entry);
    }
  }
  for (std::size_t i = 0; i < additions.size(); ++i) {
    if (!added_later(name_of(additions[i]), i + 1)) {
      env.push_back(additions[i]);
    }
  }
  return env;
}

} // namespace bgtask

namespace bgtask {

std::vector<std::string> own_binary_entries()
{
  std::string self(4096, '\0');
  const ssize_t length = ::readlink("/proc/self/exe", self.data(), self.size());
  if (length <= 0 || static_cast<std::size_t>(length) >= self.size()) {
    return {};
  }
  self.resize(static_cast<std::size_t>(length));
  const std::string folder = self.substr(0, std::max<std::size_t>(self.rfind('/'), 1));
  const char* inherited = std::getenv("PATH");
  const std::string path = inherited != nullptr ? inherited : "/usr/bin:/bin";
  std::vector<std::string> entries{"BGTASK_BIN=" + self};
  const auto folders = split(path, ':', EmptyParts::drop);
  if (std::find(folders.begin(), folders.end(), folder) == folders.end()) {
    entries.push_back("PATH=" + path + (path.empty() ? "" : ":") + folder);
  }
  return entries;
}

} // namespace bgtask
