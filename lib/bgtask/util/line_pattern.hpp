#pragma once

#include <bgtask/util/result.hpp>

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace re2 {
class RE2;
}

namespace bgtask {

// A regular expression in RE2 syntax, searched for in time linear in the
// text and with memory bounded (no backtracking, no recursion), so no
// pattern can crash or hang its caller. Copies share the compiled form.
class LinePattern
{
public:
  // The most instructions a compiled pattern may have.
  static constexpr int k_max_program_size = 2000;

  // Compiles `pattern`; a Failure says why it is not one (bad syntax, a
  // feature RE2 leaves out such as back-references, or more than
  // k_max_program_size instructions).
  static Result<LinePattern> compile(const std::string& pattern);

  // The longest text one search() should get: a search costs up to the
  // text's length times the program's size, and this keeps that near 2^23
  // steps (a tenth of a second or so). A power of two, 4 KiB to 256 KiB.
  std::size_t window_bytes() const;

  // Whether the pattern occurs in `text`. `at_start`/`at_end`: whether
  // `text` begins/ends its line (else `^`/`$` do not match there).
  bool search(std::string_view text, bool at_start, bool at_end) const;

private:
  explicit LinePattern(std::shared_ptr<const re2::RE2> compiled);

  std::shared_ptr<const re2::RE2> m_compiled;
};

} // namespace bgtask
