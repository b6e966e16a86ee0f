# Warning flags for bgtask's own targets only (linked privately).
add_library(bgtask_warnings INTERFACE)
target_compile_options(bgtask_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Woverloaded-virtual
  -Wformat=2 -Wimplicit-fallthrough -Wcast-qual)
# With optimisation, GCC 12 reports null dereferences and overlapping copies
# inside inlined libstdc++ and Boost code that cannot happen; those two checks
# run in unoptimised GCC builds (what scripts/test uses) and with clang.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  target_compile_options(bgtask_warnings INTERFACE
    $<$<CONFIG:Debug>:-Wnull-dereference> $<$<NOT:$<CONFIG:Debug>>:-Wno-restrict>)
else()
  target_compile_options(bgtask_warnings INTERFACE -Wnull-dereference)
endif()
if(BGTASK_WERROR)
  target_compile_options(bgtask_warnings INTERFACE -Werror)
endif()
