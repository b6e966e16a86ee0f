#pragma once

namespace bgtask {

// For a long-lived process forked from a bigger one (the supervisor, forked
// from the CLI): gives back memory it inherited but does not use. Returns
// free heap memory to the kernel, the stack below the frames in use, and
// drops this process's resident pages of read-only file mappings that hold
// no private copy (program code and constants: they fault back in from the
// page cache when used again, each with the 64 KiB around it, so a caller
// that runs little code afterwards keeps its functions together: `hot`).
// Best effort; never fails. Call it only while no other thread runs.
void release_unused_memory();

} // namespace bgtask
