// The size parser on arbitrary bytes: every input is either a usage error
// or a size of at most 2^62 bytes.

#include <bgtask/util/byte_size.hpp>
#include <bgtask/util/error.hpp>

#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    if (bgtask::parse_byte_size(text) > (std::uint64_t{1} << 62)) {
      std::abort();
    }
  } catch (const bgtask::Error& e) {
    if (e.code() != bgtask::ExitCode::usage) {
      std::abort();
    }
  }
  return 0;
}
