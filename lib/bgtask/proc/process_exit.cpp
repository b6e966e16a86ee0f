#include <bgtask/proc/process_exit.hpp>
#include <bgtask/util/sanitizers.hpp>

#include <cstdio>
#include <iostream>
#include <unistd.h>

#ifdef BGTASK_ADDRESS_SANITIZER
#include <sanitizer/lsan_interface.h>
#endif

namespace bgtask {

void exit_process(int code)
{
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
#ifdef BGTASK_ADDRESS_SANITIZER
  __lsan_do_leak_check();
#endif
  ::_exit(code);
}

} // namespace bgtask
