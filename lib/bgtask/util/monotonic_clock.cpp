#include <bgtask/util/fd_io.hpp>
#include <bgtask/util/monotonic_clock.hpp>

#include <array>
#include <ctime>
#include <unistd.h>

namespace bgtask {

namespace {

std::string read_time_namespace()
{
  std::array<char, 64> buffer{};
  const ssize_t n = ::readlink("/proc/self/ns/time", buffer.data(), buffer.size() - 1);
  return n > 0 ? std::string(buffer.data(), static_cast<std::size_t>(n)) : "time:[none]";
}

// A process never changes boot, and bgtask never changes its time
// namespace: read them once.
const std::string& clock_identity()
{
  static const std::string identity =
    (kernel_boot_id().empty() ? std::string("unknown-boot") : kernel_boot_id()) + "/" +
    read_time_namespace();
  return identity;
}

std::int64_t boottime_ms()
{
  timespec ts{};
  ::clock_gettime(CLOCK_BOOTTIME, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

} // namespace

const std::string& kernel_boot_id()
{
  static const std::string id = [] {
    std::string text = read_small_file("/proc/sys/kernel/random/boot_id", 64);
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) {
      text.pop_back();
    }
    return text;
  }();
  return id;
}

MonotonicMark monotonic_now()
{
  return MonotonicMark{clock_identity(), boottime_ms()};
}

std::optional<Milliseconds> monotonic_since(const MonotonicMark& earlier)
{
  if (earlier.clock != clock_identity()) {
    return std::nullopt;
  }
  const std::int64_t elapsed = boottime_ms() - earlier.ms;
  return elapsed >= 0 ? std::optional(Milliseconds(elapsed)) : std::nullopt;
}

} // namespace bgtask
