// The duration parser on arbitrary bytes: every input is either refused
// with a reason or a duration from 0 to 100 years that formats without trouble.

#include <bgtask/util/duration.hpp>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  constexpr auto k_hundred_years = std::chrono::days(36525);
  const auto result = bgtask::parse_duration(text);
  if (!result) {
    if (result.error().empty()) {
      std::abort();
    }
    return 0;
  }
  const bgtask::Milliseconds duration = *result;
  if (duration.count() < 0 || duration > k_hundred_years) {
    std::abort();
  }
  if (bgtask::format_duration(duration).empty()) {
    std::abort();
  }
  return 0;
}
