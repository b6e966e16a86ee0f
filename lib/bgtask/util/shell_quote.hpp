#pragma once

#include <string>
#include <string_view>

namespace bgtask {

// `word` in single quotes for /bin/sh, each `'` in it written `'\''`: the
// shell reads it back as exactly `word`, whatever bytes it holds.
std::string shell_quote(std::string_view word);

// `word` as a person would type it to a shell: as it is when it holds only
// letters, digits and `-_./:=@%+,` (and is not empty), else shell_quote'd.
std::string shell_word(std::string_view word);

} // namespace bgtask
