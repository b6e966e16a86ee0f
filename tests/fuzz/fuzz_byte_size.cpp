// The size parser on arbitrary bytes: every input is either refused with a
// reason or a size of at most 2^62 bytes.

#include <bgtask/util/byte_size.hpp>

#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto result = bgtask::parse_byte_size(text);
  if (result ? *result > (std::uint64_t{1} << 62) : result.error().empty()) {
    std::abort();
  }
  return 0;
}
