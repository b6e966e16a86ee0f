#include <bgtask/util/sha256.hpp>

#include <sodium.h>

namespace bgtask {

namespace {

const unsigned char* bytes(std::string_view text)
{
  return reinterpret_cast<const unsigned char*>(text.data());
}

} // namespace

// libsodium's SHA-256 needs no sodium_init(): it uses no random numbers and
// picks no implementation at run time.

Sha256Digest sha256(std::string_view data)
{
  static_assert(crypto_hash_sha256_BYTES == sizeof(Sha256Digest));
  Sha256Digest digest{};
  crypto_hash_sha256(digest.data(), bytes(data), data.size());
  return digest;
}

Sha256Digest hmac_sha256(std::string_view key, std::string_view message)
{
  static_assert(crypto_auth_hmacsha256_BYTES == sizeof(Sha256Digest));
  // The streaming form takes a key of any length (a longer one is hashed
  // first, as RFC 2104 says); the one-shot form wants exactly 32 bytes.
  crypto_auth_hmacsha256_state state;
  crypto_auth_hmacsha256_init(&state, bytes(key), key.size());
  crypto_auth_hmacsha256_update(&state, bytes(message), message.size());
  Sha256Digest digest{};
  crypto_auth_hmacsha256_final(&state, digest.data());
  return digest;
}

std::string to_hex(const Sha256Digest& digest)
{
  constexpr char k_hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * digest.size());
  for (const std::uint8_t byte : digest) {
    out.push_back(k_hex[byte >> 4]);
    out.push_back(k_hex[byte & 0xf]);
  }
  return out;
}

} // namespace bgtask
