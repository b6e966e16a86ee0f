#include <bgtask/util/split.hpp>

namespace bgtask {

std::vector<std::string_view> split(std::string_view text, char separator, EmptyParts empty)
{
  std::vector<std::string_view> parts;
  for (;;) {
    const auto end = text.find(separator);
    const auto part = text.substr(0, end);
    if (empty == EmptyParts::keep || !part.empty()) {
      parts.push_back(part);
    }
    if (end == std::string_view::npos) {
      return parts;
    }
    text.remove_prefix(end + 1);
  }
}

std::vector<std::string> split_list(std::string_view text)
{
  const auto parts = split(text, ',', EmptyParts::drop);
  return std::vector<std::string>(parts.begin(), parts.end());
}

} // namespace bgtask
