#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace bgtask {

// SHA-256 and HMAC-SHA-256 through libsodium.

using Sha256Digest = std::array<std::uint8_t, 32>;

// SHA-256 (FIPS 180-4) of `data`.
Sha256Digest sha256(std::string_view data);

// HMAC-SHA-256 (RFC 2104) of `message` under `key`.
Sha256Digest hmac_sha256(std::string_view key, std::string_view message);

// Lowercase hex of a digest (64 characters).
std::string to_hex(const Sha256Digest& digest);

} // namespace bgtask
