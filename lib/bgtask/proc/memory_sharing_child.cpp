#include <bgtask/proc/memory_sharing_child.hpp>
#include <bgtask/proc/raw_syscall.hpp>
#include <bgtask/util/error.hpp>
#include <bgtask/util/sanitizers.hpp>

#include <cerrno>
#include <csignal>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif

namespace bgtask {

namespace {

#if defined(BGTASK_ADDRESS_SANITIZER) || defined(BGTASK_THREAD_SANITIZER)
constexpr bool k_sanitized = true;
#else
constexpr bool k_sanitized = false;
#endif

constexpr bool k_share_memory = raw::k_errno_free && !k_sanitized;

// Valgrind runs a program on a simulated CPU that cannot follow a child
// sharing its memory (it stops the whole process at such a clone), so
// under it the child is a fork. Its check costs nothing outside it.
bool under_valgrind()
{
#ifdef RUNNING_ON_VALGRIND
  return RUNNING_ON_VALGRIND != 0;
#else
  return false;
#endif
}

// The child's stack, above one inaccessible guard page.
constexpr std::size_t k_guard_bytes = 4096;
constexpr std::size_t k_stack_bytes = 64 * 1024;

} // namespace

MemorySharingChild::MemorySharingChild(int (*main)(void*), void* argument)
{
  if (!k_share_memory || under_valgrind()) {
    m_pid = ::fork();
    if (m_pid == 0) {
      raw::exit(main(argument));
    }
    if (m_pid < 0) {
      throw_system("cannot fork", errno);
    }
    return;
  }
  m_stack = ::mmap(nullptr, k_guard_bytes + k_stack_bytes, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_NORESERVE, -1, 0);
  if (m_stack == MAP_FAILED) {
    m_stack = nullptr;
    throw_system("cannot make a stack for the command's process", errno);
  }
  char* const usable = static_cast<char*>(m_stack) + k_guard_bytes;
  if (::mprotect(usable, k_stack_bytes, PROT_READ | PROT_WRITE) != 0) {
    const int error = errno;
    ::munmap(m_stack, k_guard_bytes + k_stack_bytes);
    m_stack = nullptr;
    throw_system("cannot make a stack for the command's process", error);
  }
  m_pid = ::clone(main, usable + k_stack_bytes, CLONE_VM | SIGCHLD, argument);
  if (m_pid < 0) {
    const int error = errno;
    ::munmap(m_stack, k_guard_bytes + k_stack_bytes);
    m_stack = nullptr;
    throw_system("cannot fork", error);
  }
}

MemorySharingChild::~MemorySharingChild()
{
  release_stack();
}

void MemorySharingChild::release_stack()
{
  if (m_stack != nullptr) {
    ::munmap(m_stack, k_guard_bytes + k_stack_bytes);
    m_stack = nullptr;
  }
}

} // namespace bgtask
