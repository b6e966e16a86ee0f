#include <bgtask/core/output_cursor.hpp>
#include <bgtask/util/sha256.hpp>

#include <charconv>

namespace bgtask {

namespace {

constexpr std::size_t k_check_chars = 8;

std::string check_value(std::string_view id, std::uint64_t offset)
{
  std::string text("bgtask output cursor");
  text.push_back('\0');
  text.append(id);
  text.push_back('\0');
  text.append(std::to_string(offset));
  return to_hex(sha256(text)).substr(0, k_check_chars);
}

} // namespace

std::string encode_output_cursor(std::string_view id, std::uint64_t offset)
{
  return std::to_string(offset) + "." + check_value(id, offset);
}

std::optional<std::uint64_t> decode_output_cursor(std::string_view id, std::string_view cursor)
{
  const auto dot = cursor.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot > 20) {
    return std::nullopt;
  }
  std::uint64_t offset = 0;
  const auto digits = cursor.substr(0, dot);
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), offset);
  if (error != std::errc{} || end != digits.data() + digits.size() ||
      (digits.size() > 1 && digits.front() == '0')) {
    return std::nullopt;
  }
  if (cursor.substr(dot + 1) != check_value(id, offset)) {
    return std::nullopt;
  }
  return offset;
}

} // namespace bgtask
