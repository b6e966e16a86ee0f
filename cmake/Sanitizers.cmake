# Sanitizers for every target: BGTASK_SANITIZE=ON (or address) builds with
# ASan + UBSan, BGTASK_SANITIZE=thread with TSan (the two cannot be combined).
if(BGTASK_SANITIZE STREQUAL "thread")
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
elseif(BGTASK_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=address,undefined)
endif()
