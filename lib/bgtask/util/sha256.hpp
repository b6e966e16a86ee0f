#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace bgtask {

using Sha256Digest = std::array<std::uint8_t, 32>;

// SHA-256 (FIPS 180-4), fed incrementally.
class Sha256
{
public:
  Sha256();

  void update(std::string_view data);

  // The digest of everything fed so far; the object must not be fed again.
  Sha256Digest finish();

private:
  void compress(const std::uint8_t* block);

  std::array<std::uint32_t, 8> m_state;
  std::array<std::uint8_t, 64> m_block{};
  std::size_t m_filled = 0;
  std::uint64_t m_length = 0;
};

// HMAC-SHA-256 (RFC 2104) of `message` under `key`.
Sha256Digest hmac_sha256(std::string_view key, std::string_view message);

// Lowercase hex of a digest (64 characters).
std::string to_hex(const Sha256Digest& digest);

} // namespace bgtask
