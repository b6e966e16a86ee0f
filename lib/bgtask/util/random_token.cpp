#include <bgtask/util/random_token.hpp>

#include <array>
#include <sys/random.h>

namespace bgtask {

std::string random_token()
{
  std::array<unsigned char, 16> bytes{};
  if (::getrandom(bytes.data(), bytes.size(), 0) != static_cast<ssize_t>(bytes.size())) {
    bytes.fill(0);
  }
  static constexpr char k_hex[] = "0123456789abcdef";
  std::string token;
  for (const auto byte : bytes) {
    token.push_back(k_hex[byte >> 4]);
    token.push_back(k_hex[byte & 15]);
  }
  return token;
}

} // namespace bgtask
