// What the importers take of an event's time, so that every figure the tools sum stays within
// 64-bit picoseconds.
#pragma once

#include <cstdint>

namespace mlprof::model {

// The longest event the importers take: about 20 hours. Any longer is a damaged or forged
// file, and sums of a few such durations would pass what 64-bit picoseconds hold.
inline constexpr int64_t kMaxEventDurationPs = int64_t(1) << 56;
inline constexpr const char* kMaxEventDurationText = "20 hours";

}  // namespace mlprof::model
