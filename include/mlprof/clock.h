// The capture clock. Annotations read raw ticks (the TSC on x86-64); the session converts
// ticks to nanoseconds since the Unix epoch at export, from two (ticks, realtime) pairs
// taken at start and stop.
#pragma once

#include <cstdint>
#include <ctime>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

namespace mlprof {

inline uint64_t now_ticks() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  return __rdtsc();
#else
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
#endif
}

// Nanoseconds since the Unix epoch (CLOCK_REALTIME), as XSpace timestamps are.
inline int64_t now_unix_ns() noexcept {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

}  // namespace mlprof
