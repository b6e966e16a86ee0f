# libFuzzer builds (BGTASK_FUZZ): clang only. Every bgtask target is
# instrumented for coverage plus ASan and UBSan; the fuzz targets under
# tests/fuzz link libFuzzer's main.
if(BGTASK_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "BGTASK_FUZZ needs clang: configure with -DCMAKE_CXX_COMPILER=clang++")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer
    -fno-sanitize-recover=all)
  add_link_options(-fsanitize=address,undefined)
endif()
