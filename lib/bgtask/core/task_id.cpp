#include <bgtask/core/task_id.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/terminal_escape.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <sys/random.h>

namespace bgtask {

namespace {

constexpr std::string_view k_alphabet = "0123456789abcdefghjkmnpqrstvwxyz";
constexpr std::size_t k_time_chars = 8;
constexpr std::size_t k_random_chars = k_task_id_length - k_time_chars;
constexpr std::int64_t k_max_time_ms = (std::int64_t{1} << (5 * k_time_chars)) - 1;
constexpr std::size_t k_max_shown_bytes = 40;

constexpr std::chrono::sys_days k_id_epoch{std::chrono::January / 1 / 2024};

std::uint32_t random_bits()
{
  unsigned char bytes[3];
  std::size_t filled = 0;
  while (filled < sizeof bytes) {
    const ssize_t count = getrandom(bytes + filled, sizeof bytes - filled, 0);
    if (count < 0) {
      if (errno == EINTR) {
        continue;
      }
      throw_system("getrandom", errno);
    }
    filled += static_cast<std::size_t>(count);
  }
  return static_cast<std::uint32_t>(bytes[0] << 16 | bytes[1] << 8 | bytes[2]);
}

void append_base32(std::string& out, std::uint64_t value, std::size_t chars)
{
  for (std::size_t i = chars; i-- > 0;) {
    out += k_alphabet[(value >> (5 * i)) & 0x1f];
  }
}

bool is_id_char(char c)
{
  return k_alphabet.find(c) != std::string_view::npos;
}

bool is_continuation_byte(char c)
{
  return (static_cast<unsigned char>(c) & 0xc0) == 0x80;
}

// `text` escaped for an error message, cut at a character boundary after
// about k_max_shown_bytes.
std::string shown_text(std::string_view text)
{
  if (text.size() <= k_max_shown_bytes) {
    return escape_for_terminal(text, KeepNewlines::no);
  }
  std::size_t cut = k_max_shown_bytes;
  for (int i = 0; i < 3 && cut > 0 && is_continuation_byte(text[cut]); ++i) {
    --cut;
  }
  return escape_for_terminal(text.substr(0, cut), KeepNewlines::no) + "...";
}

// The time part of a well-formed ID.
std::int64_t time_part(std::string_view id)
{
  std::int64_t value = 0;
  for (std::size_t i = 0; i < k_time_chars; ++i) {
    value = value << 5 | static_cast<std::int64_t>(k_alphabet.find(id[i]));
  }
  return value;
}

} // namespace

// Times before the ID epoch, or after its 40 bits run out in 2058, are clamped.
std::string make_task_id(std::chrono::system_clock::time_point created, std::string_view newest)
{
  using std::chrono::milliseconds;
  const auto created_ms = std::chrono::floor<milliseconds>(created.time_since_epoch());
  const auto epoch_ms = std::chrono::duration_cast<milliseconds>(k_id_epoch.time_since_epoch());
  std::int64_t offset = created_ms.count() - epoch_ms.count();
  if (is_task_id(newest)) {
    offset = std::max(offset, time_part(newest) + 1);
  }
  offset = std::clamp<std::int64_t>(offset, 0, k_max_time_ms);
  std::string id;
  id.reserve(k_task_id_length);
  append_base32(id, static_cast<std::uint64_t>(offset), k_time_chars);
  append_base32(id, random_bits(), k_random_chars);
  return id;
}

bool is_task_id(std::string_view text)
{
  return text.size() == k_task_id_length && std::all_of(text.begin(), text.end(), is_id_char);
}

bool is_task_id_prefix(std::string_view text)
{
  return text.size() >= k_min_id_prefix_length && text.size() <= k_task_id_length &&
         std::all_of(text.begin(), text.end(), is_id_char);
}

std::string lowered(std::string_view text)
{
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') {
      c = static_cast<char>(c - 'A' + 'a');
    }
  }
  return out;
}

void check_task_id_prefix(std::string_view text)
{
  if (text != k_newest_here && text != k_newest && !is_task_id_prefix(lowered(text))) {
    throw_usage("invalid task ID '" + shown_text(text) +
                "': expected 4 to 12 characters of 0-9 and a-z (except i, l, o, u), @ or @last");
  }
}

} // namespace bgtask
