#pragma once

#include <sys/types.h>

namespace bgtask {

// A child process that shares this process's memory until it execs or
// exits (clone with CLONE_VM, on a stack of its own), as posix_spawn makes
// one, but without suspending this process meanwhile: the command waits in
// one for "go" while the supervisor writes the running record. No copy of
// the address space is made, nor are pages copied on write after it. The
// child may only read memory that this process leaves unchanged until the
// child is gone, and make raw system calls (raw_syscall.hpp: errno is
// shared too); it ends in an exec or raw::exit. Where raw system calls are
// missing, or a sanitizer or Valgrind could not follow such a child, it is
// a fork.
class MemorySharingChild
{
public:
  // Runs `main(argument)` in a new child (its return value is the child's
  // exit code). Throws Error(failure) if the stack or the process cannot
  // be made.
  MemorySharingChild(int (*main)(void*), void* argument);
  // Frees the child's stack: only once the child exec'd or exited.
  ~MemorySharingChild();
  // The same, sooner: what the child wrote on its stack counts as this
  // process's memory until then.
  void release_stack();
  MemorySharingChild(const MemorySharingChild&) = delete;
  MemorySharingChild& operator=(const MemorySharingChild&) = delete;

  pid_t pid() const { return m_pid; }

private:
  void* m_stack = nullptr;
  pid_t m_pid = -1;
};

} // namespace bgtask
