#include <bgtask/util/shell_quote.hpp>

#include <algorithm>
#include <cctype>

namespace bgtask {

std::string shell_quote(std::string_view word)
{
  std::string out = "'";
  for (const char c : word) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

std::string shell_word(std::string_view word)
{
  const bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
           std::string_view("-_./:=@%+,").find(c) != std::string_view::npos;
  });
  return plain ? std::string(word) : shell_quote(word);
}

} // namespace bgtask
