# Installs the man page, the shell completions and the guides next to the
# binary, and configures CPack so that `cpack -G DEB` in a build directory
# makes a Debian package of what `cmake --install` installs.
include(GNUInstallDirs)

# The man page: docs/bgtask.1.scd with each command's options filled in
# from the command table (apps/bgtask-man-page), turned into roff by scdoc.
# Debian wants man pages compressed; gzip -n keeps the result reproducible.
find_program(BGTASK_SCDOC scdoc)
if(NOT BGTASK_SCDOC)
  message(FATAL_ERROR "scdoc is needed to build the man page: scripts/deps.sh build installs it")
endif()
find_program(BGTASK_GZIP gzip REQUIRED)
set(BGTASK_MAN_SOURCE ${PROJECT_SOURCE_DIR}/docs/bgtask.1.scd)
set(BGTASK_MAN_DIR ${PROJECT_BINARY_DIR}/man)
set(BGTASK_MAN_PAGE ${BGTASK_MAN_DIR}/bgtask.1.gz)
add_custom_command(OUTPUT ${BGTASK_MAN_DIR}/bgtask.1 ${BGTASK_MAN_PAGE}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${BGTASK_MAN_DIR}
  COMMAND bgtask_man_page ${BGTASK_MAN_SOURCE} ${BGTASK_MAN_DIR}/bgtask.1.scd
  COMMAND sh -c "\"$1\" <\"$2\" >\"$3\"" sh ${BGTASK_SCDOC} ${BGTASK_MAN_DIR}/bgtask.1.scd
    ${BGTASK_MAN_DIR}/bgtask.1
  COMMAND sh -c "\"$1\" -9 -n -c \"$2\" >\"$3\"" sh ${BGTASK_GZIP} ${BGTASK_MAN_DIR}/bgtask.1
    ${BGTASK_MAN_PAGE}
  DEPENDS ${BGTASK_MAN_SOURCE} bgtask_man_page
  COMMENT "Generating the man page"
  VERBATIM)
add_custom_target(bgtask_man_page_files ALL DEPENDS ${BGTASK_MAN_PAGE})
install(FILES ${BGTASK_MAN_PAGE} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

# Where Debian's shells look under /usr. zsh looks in share/zsh/site-functions
# under /usr/local instead: pass that as BGTASK_ZSH_COMPLETION_DIR there.
set(BGTASK_BASH_COMPLETION_DIR ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
  CACHE STRING "Install directory of the bash completion (relative to the prefix)")
set(BGTASK_ZSH_COMPLETION_DIR ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions
  CACHE STRING "Install directory of the zsh completion (relative to the prefix)")
set(BGTASK_FISH_COMPLETION_DIR ${CMAKE_INSTALL_DATADIR}/fish/vendor_completions.d
  CACHE STRING "Install directory of the fish completion (relative to the prefix)")
install(FILES ${PROJECT_SOURCE_DIR}/completions/bgtask.bash
  DESTINATION ${BGTASK_BASH_COMPLETION_DIR} RENAME bgtask)
install(FILES ${PROJECT_SOURCE_DIR}/completions/_bgtask DESTINATION ${BGTASK_ZSH_COMPLETION_DIR})
install(FILES ${PROJECT_SOURCE_DIR}/completions/bgtask.fish DESTINATION ${BGTASK_FISH_COMPLETION_DIR})

# The README and the guides under share/doc/bgtask, with docs/ kept as a
# folder so that the README's links and "see docs/agents.md" resolve there.
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/CHANGES.md
  DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs
  FILES_MATCHING PATTERN "*.md" PATTERN "*.schema.json")

set(BGTASK_PACKAGE_CONTACT "bgtask maintainers <bgtask@example.org>"
  CACHE STRING "Maintainer named in the Debian package")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME bgtask)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT ${BGTASK_PACKAGE_CONTACT})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "run commands in the background and come back to them later")
set(CPACK_PACKAGE_DESCRIPTION
  "bgtask starts commands in the background from shells, scripts, cron jobs and\n\
programs, and keeps each task's state in plain files: no daemon, and every\n\
invocation repairs what crashed processes left behind. It lists, waits for,\n\
follows, cancels and cleans up tasks, with exit codes for scripts.")
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# `man bgtask` needs man-db, and the bash completion needs bash-completion;
# neither is on a minimal Debian.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "man-db, bash-completion")
# dpkg-shlibdeps (from dpkg-dev) reads the binary's shared libraries and
# names the packages and versions it needs; CPack runs file(1) first to find
# the binaries. Without either, list the packages by hand. A static binary
# (the default for Release builds, cmake/Linkage.cmake) needs none.
find_program(BGTASK_DPKG_SHLIBDEPS dpkg-shlibdeps)
find_program(BGTASK_FILE file)
if(NOT BGTASK_LINKAGE_USED STREQUAL "dynamic")
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS OFF)
elseif(BGTASK_DPKG_SHLIBDEPS AND BGTASK_FILE)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
else()
  set(CPACK_DEBIAN_PACKAGE_DEPENDS
    "libboost-json1.81.0, libboost-program-options1.81.0, libboost-filesystem1.81.0, libsodium23, libre2-9, libncursesw6, libtinfo6, libc6, libstdc++6, libgcc-s1")
endif()
include(CPack)
