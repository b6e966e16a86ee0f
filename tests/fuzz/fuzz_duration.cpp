// The duration parser on arbitrary bytes: every input is either a usage
// error or a duration from 0 to 100 years that formats without trouble.

#include <bgtask/util/duration.hpp>
#include <bgtask/util/error.hpp>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  constexpr auto k_hundred_years = std::chrono::days(36525);
  try {
    const bgtask::Milliseconds duration = bgtask::parse_duration(text);
    if (duration.count() < 0 || duration > k_hundred_years) {
      std::abort();
    }
    if (bgtask::format_duration(duration).empty()) {
      std::abort();
    }
  } catch (const bgtask::Error& e) {
    if (e.code() != bgtask::ExitCode::usage) {
      std::abort();
    }
  }
  return 0;
}
