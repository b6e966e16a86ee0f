#include <bgtask/util/line_pattern.hpp>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <re2/re2.h>
#include <string>

namespace bgtask {

namespace {

// The compiled program and its DFA caches together; a pattern that needs
// more is refused when compiled, and a search whose DFA outgrows its share
// goes on with RE2's NFA, still linear.
constexpr std::int64_t k_max_memory = 8 << 20;

constexpr std::size_t k_steps_per_search = std::size_t{1} << 23;
constexpr std::size_t k_min_window = 4 * 1024;
constexpr std::size_t k_max_window = 256 * 1024;

// What stands for the text beyond `text` in a search: neither a word
// character nor a newline, and never in text made for matching.
constexpr char k_outside = '\x01';

} // namespace

LinePattern::LinePattern(std::shared_ptr<const re2::RE2> compiled)
  : m_compiled(std::move(compiled))
{
}

Result<LinePattern> LinePattern::compile(const std::string& pattern)
{
  re2::RE2::Options options;
  options.set_log_errors(false);
  options.set_max_mem(k_max_memory);
  auto compiled = std::make_shared<const re2::RE2>(pattern, options);
  if (!compiled->ok()) {
    return Failure{compiled->error()};
  }
  if (compiled->ProgramSize() > k_max_program_size) {
    return Failure{"pattern too complex (" + std::to_string(compiled->ProgramSize()) +
                   " instructions compiled, at most " + std::to_string(k_max_program_size) + ")"};
  }
  return LinePattern(std::move(compiled));
}

std::size_t LinePattern::window_bytes() const
{
  const auto size = static_cast<std::size_t>(std::max(1, m_compiled->ProgramSize()));
  return std::bit_floor(std::clamp(k_steps_per_search / size, k_min_window, k_max_window));
}

bool LinePattern::search(std::string_view text, bool at_start, bool at_end) const
{
  if (at_start && at_end) {
    return re2::RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), *m_compiled);
  }
  std::string context;
  context.reserve(text.size() + 2);
  if (!at_start) {
    context += k_outside;
  }
  context += text;
  if (!at_end) {
    context += k_outside;
  }
  const std::size_t begin = at_start ? 0 : 1;
  return m_compiled->Match(context, begin, begin + text.size(), re2::RE2::UNANCHORED, nullptr, 0);
}

} // namespace bgtask
