#pragma once

#include <string>

namespace bgtask {

// A random 128-bit token in hex (getrandom(2); all zeros if that fails),
// for owner instances and the names of temporary files.
std::string random_token();

} // namespace bgtask
