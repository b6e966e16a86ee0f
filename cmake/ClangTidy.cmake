# BGTASK_CLANG_TIDY=ON runs clang-tidy (.clang-tidy, where every finding is
# an error) on each source of lib/ and apps/ as it is compiled, so a rebuild
# checks only what changed. .ci/run turns it on.
option(BGTASK_CLANG_TIDY "Run clang-tidy on bgtask's sources while building them" OFF)
if(BGTASK_CLANG_TIDY)
  find_program(BGTASK_CLANG_TIDY_PROGRAM clang-tidy REQUIRED)
  # The compile commands are gcc's: clang-tidy should not stop at a warning
  # option that only gcc knows.
  set(BGTASK_CLANG_TIDY_COMMAND ${BGTASK_CLANG_TIDY_PROGRAM} --quiet
    --extra-arg=-Wno-unknown-warning-option)
endif()

# bgtask_clang_tidy(TARGET...): runs clang-tidy on the targets' sources when
# BGTASK_CLANG_TIDY is ON.
function(bgtask_clang_tidy)
  if(BGTASK_CLANG_TIDY)
    set_target_properties(${ARGN} PROPERTIES CXX_CLANG_TIDY "${BGTASK_CLANG_TIDY_COMMAND}")
  endif()
endfunction()
