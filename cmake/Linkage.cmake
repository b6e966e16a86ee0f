# How the bgtask executables are linked (BGTASK_LINKAGE):
#   static-pie  one self-contained position-independent binary (Boost, libstdc++,
#               libgcc and glibc inside): no dynamic loader and no shared-library
#               relocations when a command starts, address space layout still
#               randomised
#   static      the same, not position-independent (loaded at a fixed address)
#   dynamic     shared Boost, libstdc++ and glibc
# Empty (the default) picks static-pie for optimised builds, which is what
# scripts/bgtask, `cmake --install` and the .deb ship, and dynamic for Debug,
# sanitizer and fuzz builds (the sanitizer runtimes need the shared C++
# runtime; the tests do not measure start-up). BGTASK_STATIC=ON is the older
# spelling of BGTASK_LINKAGE=static.
#
# bgtask uses no glibc function that needs dlopen in a static binary (no NSS
# lookups: getpwnam, getaddrinfo and the like; no iconv); the locale it loads
# for wcwidth (C.UTF-8) is read from /usr/lib/locale as in a dynamic binary.
set(BGTASK_LINKAGE "" CACHE STRING "static-pie, static or dynamic (empty: static-pie for optimised builds)")
set_property(CACHE BGTASK_LINKAGE PROPERTY STRINGS "" static-pie static dynamic)

set(BGTASK_LINKAGE_USED "${BGTASK_LINKAGE}")
if(BGTASK_STATIC)
  set(BGTASK_LINKAGE_USED static)
elseif("${BGTASK_LINKAGE_USED}" STREQUAL "")
  if(CMAKE_BUILD_TYPE STREQUAL "Debug" OR BGTASK_SANITIZE OR BGTASK_FUZZ)
    set(BGTASK_LINKAGE_USED dynamic)
  else()
    set(BGTASK_LINKAGE_USED static-pie)
  endif()
endif()
if(NOT BGTASK_LINKAGE_USED MATCHES "^(static-pie|static|dynamic)$")
  message(FATAL_ERROR "BGTASK_LINKAGE must be static-pie, static or dynamic, not '${BGTASK_LINKAGE}'")
endif()
if(NOT BGTASK_LINKAGE_USED STREQUAL "dynamic")
  set(Boost_USE_STATIC_LIBS ON)
endif()

set(description "${BGTASK_LINKAGE_USED}")
# What scripts/bench reports of the binary it measures.
set(BGTASK_LINK_DESCRIPTION "${description}" CACHE INTERNAL "how the bgtask executables are linked")
message(STATUS "bgtask linkage: ${description}")

# bgtask_apply_linkage(TARGET): links an executable as BGTASK_LINKAGE says.
function(bgtask_apply_linkage target)
  if(BGTASK_LINKAGE_USED STREQUAL "static-pie")
    target_link_options(${target} PRIVATE -static-pie)
  elseif(BGTASK_LINKAGE_USED STREQUAL "static")
    target_link_options(${target} PRIVATE -static -no-pie)
  endif()
endfunction()
