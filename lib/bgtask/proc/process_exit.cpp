#include <bgtask/proc/process_exit.hpp>

#include <cstdio>
#include <iostream>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define BGTASK_LEAK_CHECK 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BGTASK_LEAK_CHECK 1
#endif
#endif
#ifdef BGTASK_LEAK_CHECK
#include <sanitizer/lsan_interface.h>
#endif

namespace bgtask {

void exit_process(int code)
{
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
#ifdef BGTASK_LEAK_CHECK
  __lsan_do_leak_check();
#endif
  ::_exit(code);
}

} // namespace bgtask
