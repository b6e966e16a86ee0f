#include <bgtask/util/sha256.hpp>

#include <algorithm>

namespace bgtask {

namespace {

constexpr std::array<std::uint32_t, 64> k_round_constants{
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

constexpr std::array<std::uint32_t, 8> k_initial_state{
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

constexpr std::size_t k_block_bytes = 64;

constexpr std::uint32_t rotate_right(std::uint32_t x, int n)
{
  return (x >> n) | (x << (32 - n));
}

} // namespace

Sha256::Sha256()
  : m_state(k_initial_state)
{
}

void Sha256::compress(const std::uint8_t* block)
{
  std::array<std::uint32_t, 64> w{};
  for (std::size_t i = 0; i < 16; ++i) {
    w[i] = (std::uint32_t{block[4 * i]} << 24) | (std::uint32_t{block[4 * i + 1]} << 16) |
           (std::uint32_t{block[4 * i + 2]} << 8) | std::uint32_t{block[4 * i + 3]};
  }
  for (std::size_t i = 16; i < 64; ++i) {
    const std::uint32_t s0 =
      rotate_right(w[i - 15], 7) ^ rotate_right(w[i - 15], 18) ^ (w[i - 15] >> 3);
    const std::uint32_t s1 =
      rotate_right(w[i - 2], 17) ^ rotate_right(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  auto [a, b, c, d, e, f, g, h] = m_state;
  for (std::size_t i = 0; i < 64; ++i) {
    const std::uint32_t sum1 = rotate_right(e, 6) ^ rotate_right(e, 11) ^ rotate_right(e, 25);
    const std::uint32_t choice = (e & f) ^ (~e & g);
    const std::uint32_t t1 = h + sum1 + choice + k_round_constants[i] + w[i];
    const std::uint32_t sum0 = rotate_right(a, 2) ^ rotate_right(a, 13) ^ rotate_right(a, 22);
    const std::uint32_t majority = (a & b) ^ (a & c) ^ (b & c);
    const std::uint32_t t2 = sum0 + majority;
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  const std::array<std::uint32_t, 8> added{a, b, c, d, e, f, g, h};
  for (std::size_t i = 0; i < 8; ++i) {
    m_state[i] += added[i];
  }
}

void Sha256::update(std::string_view data)
{
  m_length += data.size();
  for (const char c : data) {
    m_block[m_filled++] = static_cast<std::uint8_t>(c);
    if (m_filled == k_block_bytes) {
      compress(m_block.data());
      m_filled = 0;
    }
  }
}

Sha256Digest Sha256::finish()
{
  const std::uint64_t bits = m_length * 8;
  m_block[m_filled++] = 0x80;
  if (m_filled > k_block_bytes - 8) {
    std::fill(m_block.begin() + static_cast<long>(m_filled), m_block.end(), 0);
    compress(m_block.data());
    m_filled = 0;
  }
  std::fill(m_block.begin() + static_cast<long>(m_filled), m_block.end() - 8, 0);
  for (std::size_t i = 0; i < 8; ++i) {
    m_block[k_block_bytes - 1 - i] = static_cast<std::uint8_t>(bits >> (8 * i));
  }
  compress(m_block.data());
  Sha256Digest digest{};
  for (std::size_t i = 0; i < 8; ++i) {
    for (std::size_t j = 0; j < 4; ++j) {
      digest[4 * i + j] = static_cast<std::uint8_t>(m_state[i] >> (24 - 8 * j));
    }
  }
  return digest;
}

Sha256Digest hmac_sha256(std::string_view key, std::string_view message)
{
  std::string block_key(key);
  if (block_key.size() > k_block_bytes) {
    Sha256 hash;
    hash.update(key);
    const auto digest = hash.finish();
    block_key.assign(digest.begin(), digest.end());
  }
  block_key.resize(k_block_bytes, '\0');
  std::string inner_pad(k_block_bytes, '\0');
  std::string outer_pad(k_block_bytes, '\0');
  for (std::size_t i = 0; i < k_block_bytes; ++i) {
    inner_pad[i] = static_cast<char>(block_key[i] ^ 0x36);
    outer_pad[i] = static_cast<char>(block_key[i] ^ 0x5c);
  }
  Sha256 inner;
  inner.update(inner_pad);
  inner.update(message);
  const auto inner_digest = inner.finish();
  Sha256 outer;
  outer.update(outer_pad);
  outer.update(
    std::string_view(reinterpret_cast<const char*>(inner_digest.data()), inner_digest.size()));
  return outer.finish();
}

std::string to_hex(const Sha256Digest& digest)
{
  static constexpr char k_hex[] = "0123456789abcdef";
  std::string text;
  text.reserve(digest.size() * 2);
  for (const auto byte : digest) {
    text.push_back(k_hex[byte >> 4]);
    text.push_back(k_hex[byte & 15]);
  }
  return text;
}

} // namespace bgtask
