#pragma once

#include <cerrno>

namespace bgtask {

// Whether `errnum` says the process or the system ran short of descriptors
// or memory (EMFILE, ENFILE, ENOMEM): a failure that tells nothing about
// the file or process asked for.
inline bool is_resource_shortage(int errnum)
{
  return errnum == EMFILE || errnum == ENFILE || errnum == ENOMEM;
}

} // namespace bgtask
