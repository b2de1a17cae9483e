// The units of the tools' JSON: the model counts picoseconds, the JSON speaks milliseconds (or
// microseconds where a key says `_us`), docs/ARCHITECTURE.md §4.
#pragma once

#include <cstdint>

namespace mlprof::analysis {

inline double ms(int64_t ps) { return double(ps) / 1e9; }
inline double us(int64_t ps) { return double(ps) / 1e6; }

}  // namespace mlprof::analysis
