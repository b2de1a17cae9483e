// Sizes for the load and fault tests: full size in a plain build, smaller under the
// sanitizers (ThreadSanitizer runs these about ten times slower). MLPROF_LOAD_SCALE=N
// multiplies the loops, for a longer soak by hand.
#pragma once

#include <cstdlib>

namespace mlprof::testing {

#if defined(__SANITIZE_THREAD__)
constexpr bool kUnderThreadSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
constexpr bool kUnderThreadSanitizer = true;
#else
constexpr bool kUnderThreadSanitizer = false;
#endif
#else
constexpr bool kUnderThreadSanitizer = false;
#endif

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kUnderSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kUnderSanitizer = true;
#else
constexpr bool kUnderSanitizer = kUnderThreadSanitizer;
#endif
#else
constexpr bool kUnderSanitizer = kUnderThreadSanitizer;
#endif

// `plain` in a plain build, `sanitized` under a sanitizer, times MLPROF_LOAD_SCALE.
inline int load_size(int plain, int sanitized) {
  int n = kUnderSanitizer ? sanitized : plain;
  if (const char* scale = std::getenv("MLPROF_LOAD_SCALE"); scale != nullptr && std::atoi(scale) > 0) {
    n *= std::atoi(scale);
  }
  return n;
}

}  // namespace mlprof::testing
