// Converting capture ticks to time. Annotations read only the tick counter; at export,
// ticks become picoseconds through a line fitted to (ticks, CLOCK_REALTIME) pairs.
#pragma once

#include <cstdint>
#include <ctime>

#include "mlprof/clock.h"

namespace mlprof::capture {

// One moment on three clocks: the tick counter, CLOCK_MONOTONIC (for the tick rate: it
// never steps) and CLOCK_REALTIME (for the Unix-epoch times XSpace holds).
struct ClockPair {
  uint64_t ticks = 0;
  int64_t monotonic_ns = 0;
  int64_t unix_ns = 0;
};

inline int64_t now_monotonic_ns() noexcept {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// A pair whose tick is the middle of the tightest of a few ticks/realtime/ticks brackets.
inline ClockPair read_clock_pair() noexcept {
  ClockPair best;
  uint64_t best_width = UINT64_MAX;
  for (int i = 0; i < 5; ++i) {
    const uint64_t before = now_ticks();
    const int64_t monotonic = now_monotonic_ns();
    const int64_t unix_ns = now_unix_ns();
    const uint64_t after = now_ticks();
    if (after - before < best_width) {
      best_width = after - before;
      best = ClockPair{before + (after - before) / 2, monotonic, unix_ns};
    }
  }
  return best;
}

// ps since `origin` = (ticks - origin.ticks) * rate, with the rate from the pairs farthest
// apart. Integer fixed point, so the map is monotone: events that nest in ticks nest in the
// output, with durations computed as differences of converted ends.
class TickConverter {
 public:
  TickConverter(ClockPair origin, ClockPair rate_from, ClockPair rate_to) : origin_(origin) {
    const __int128 ticks = __int128(rate_to.ticks) - __int128(rate_from.ticks);
    const __int128 ps = (__int128(rate_to.monotonic_ns) - __int128(rate_from.monotonic_ns)) * 1000;
    if (ticks > 0 && ps > 0) ps_per_tick_q32_ = (ps << 32) / ticks;
  }

  int64_t ps_since_origin(uint64_t ticks) const noexcept {
    const __int128 delta = __int128(ticks) - __int128(origin_.ticks);
    return int64_t((delta * ps_per_tick_q32_) >> 32);
  }
  int64_t origin_unix_ns() const noexcept { return origin_.unix_ns; }

 private:
  ClockPair origin_;
  __int128 ps_per_tick_q32_ = __int128(1000) << 32;  // 1 tick = 1 ns if the pairs are unusable
};

}  // namespace mlprof::capture
