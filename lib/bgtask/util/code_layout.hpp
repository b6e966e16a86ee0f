#pragma once

// Marks a function `start` runs before the command's exec (in the CLI, the
// supervisor or the command's process): the linker keeps all of them
// together. A forked process maps the binary's code anew, one page fault
// per 64 KiB window it runs in (the kernel maps the pages around a fault
// with it); spread over the binary, start's own code cost a fault per
// function in each process, together it costs a few. Where the build
// links with lld, cmake/start-path.order lays out the whole start path
// (the C and C++ libraries' functions too), this section among them.
#define BGTASK_START_PATH [[gnu::section(".text.sorted.bgtask_start")]]
