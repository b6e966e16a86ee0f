// A fresh stack through makecontext/setcontext. The mapping made last is
// remembered in a static, which a fork copies: the child that switches to
// its own stack unmaps its parent's, whose frames it will never return to.

#include <bgtask/proc/fresh_stack.hpp>

#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

namespace bgtask {

namespace {

struct Mapping
{
  void* base = nullptr;
  std::size_t size = 0;
};

Mapping g_current;  // the stack this process runs on, if mapped here
Mapping g_previous; // the one it left, to unmap once off it
void (*g_entry)() = nullptr;
ucontext_t g_context;

void trampoline()
{
  if (g_previous.base != nullptr) {
    ::munmap(g_previous.base, g_previous.size);
    g_previous = {};
  }
  g_entry();
  ::_exit(0);
}

} // namespace

void run_on_fresh_stack(void (*entry)(), std::size_t size)
{
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t total = size + page;
  void* base = ::mmap(nullptr, total, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
  if (base == MAP_FAILED) {
    return;
  }
  ::mprotect(base, page, PROT_NONE); // the guard page: an overflow faults
  if (::getcontext(&g_context) != 0) {
    ::munmap(base, total);
    return;
  }
  g_previous = g_current;
  g_current = Mapping{base, total};
  g_entry = entry;
  g_context.uc_stack.ss_sp = static_cast<char*>(base) + page;
  g_context.uc_stack.ss_size = size;
  g_context.uc_link = nullptr;
  ::makecontext(&g_context, &trampoline, 0);
  ::setcontext(&g_context);
}

} // namespace bgtask
