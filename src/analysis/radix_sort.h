// Sorting by a 32-bit key in a few linear passes, for millions of items in no useful order
// (sort_runs.h serves items that come in sorted runs).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace mlprof::analysis {

// Sorts `v` by key(item), a uint32_t, keeping the order of equal keys: least significant digit
// first, 11 bits a pass, skipping a pass where every item has the same digit.
template <typename T, typename Key>
void radix_sort(std::vector<T>& v, Key key) {
  constexpr unsigned kBits = 11;
  constexpr size_t kBuckets = size_t(1) << kBits;
  uint32_t any_bits = 0;
  for (const T& x : v) any_bits |= key(x);
  std::vector<T> out;
  for (unsigned shift = 0; shift < 32 && (any_bits >> shift) != 0; shift += kBits) {
    std::array<size_t, kBuckets> at{};
    for (const T& x : v) ++at[(key(x) >> shift) & (kBuckets - 1)];
    bool one_digit = false;
    size_t sum = 0;
    for (size_t& a : at) {
      one_digit |= a == v.size();
      const size_t count = a;
      a = sum;
      sum += count;
    }
    if (one_digit) continue;
    out.resize(v.size());
    for (const T& x : v) out[at[(key(x) >> shift) & (kBuckets - 1)]++] = x;
    v.swap(out);
  }
}

}  // namespace mlprof::analysis
