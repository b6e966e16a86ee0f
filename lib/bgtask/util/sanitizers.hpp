#pragma once

// Which sanitizer this build runs under, for the few places that must do
// without a trick the sanitizer cannot follow (GCC and clang spell it apart).
#if defined(__SANITIZE_ADDRESS__)
#define BGTASK_ADDRESS_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BGTASK_ADDRESS_SANITIZER 1
#endif
#endif

#if defined(__SANITIZE_THREAD__)
#define BGTASK_THREAD_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define BGTASK_THREAD_SANITIZER 1
#endif
#endif
