# Warning flags for bgtask's own targets only (linked privately).
add_library(bgtask_warnings INTERFACE)
target_compile_options(bgtask_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Woverloaded-virtual
  -Wnull-dereference -Wformat=2 -Wimplicit-fallthrough -Wcast-qual)
if(BGTASK_WERROR)
  target_compile_options(bgtask_warnings INTERFACE -Werror)
endif()
