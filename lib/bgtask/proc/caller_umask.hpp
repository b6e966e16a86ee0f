#pragma once

#include <sys/types.h>

namespace bgtask {

// Sets this process's umask to 077 (so nothing bgtask creates is ever
// readable by others, even for a moment) and remembers the caller's umask
// for the commands it starts. Idempotent.
void restrict_umask();

// The umask bgtask was started with.
mode_t caller_umask();

} // namespace bgtask
