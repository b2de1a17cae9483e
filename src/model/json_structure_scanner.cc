#include "model/json_structure_scanner.h"

#include <algorithm>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace mlprof::model {
namespace {

// One bit per byte of a 64-byte block for each character that matters.
struct BlockMasks {
  uint64_t quote, backslash, open, close, comma;
};

#if defined(__SSE2__)
uint64_t bits_equal(const __m128i (&v)[4], __m128i c) {
  uint64_t m = 0;
  for (int i = 0; i < 4; ++i) m |= uint64_t(uint32_t(_mm_movemask_epi8(_mm_cmpeq_epi8(v[i], c)))) << (16 * i);
  return m;
}

BlockMasks classify(const char* block) {
  __m128i v[4], folded[4];
  const __m128i case_bit = _mm_set1_epi8(0x20);
  for (int i = 0; i < 4; ++i) {
    v[i] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(block + 16 * i));
    folded[i] = _mm_or_si128(v[i], case_bit);  // '[' | 0x20 == '{' and ']' | 0x20 == '}'
  }
  return {bits_equal(v, _mm_set1_epi8('"')), bits_equal(v, _mm_set1_epi8('\\')), bits_equal(folded, _mm_set1_epi8('{')),
          bits_equal(folded, _mm_set1_epi8('}')), bits_equal(v, _mm_set1_epi8(','))};
}
#else
BlockMasks classify(const char* block) {
  BlockMasks m{};
  for (int i = 0; i < 64; ++i) {
    const uint64_t bit = uint64_t(1) << i;
    switch (block[i]) {
      case '"': m.quote |= bit; break;
      case '\\': m.backslash |= bit; break;
      case '{': case '[': m.open |= bit; break;
      case '}': case ']': m.close |= bit; break;
      case ',': m.comma |= bit; break;
      default: break;
    }
  }
  return m;
}
#endif

// Bit i is the parity of the set bits at or below i: 1 from an opening quote up to (not
// including) the closing one.
uint64_t prefix_xor(uint64_t x) {
  x ^= x << 1;
  x ^= x << 2;
  x ^= x << 4;
  x ^= x << 8;
  x ^= x << 16;
  x ^= x << 32;
  return x;
}

}  // namespace

JsonStructureScanner::Result JsonStructureScanner::scan(const char* text, size_t from, size_t to, bool stop_at_comma) {
  Result result;
  char tail[64];
  for (size_t pos = from; pos < to; pos += 64) {
    const char* block = text + pos;
    const int last = int(std::min<size_t>(to - pos, 64)) - 1;  // the block's last byte of text
    if (to - pos < 64) {  // the last piece, padded with spaces (which change nothing)
      std::memset(tail, ' ', sizeof tail);
      std::memcpy(tail, block, to - pos);
      block = tail;
    }
    const BlockMasks m = classify(block);
    // Characters after an odd run of backslashes are escaped; backslashes are rare in traces.
    uint64_t escaped = escape_carry_;
    escape_carry_ = 0;
    for (uint64_t b = m.backslash; b != 0; b &= b - 1) {
      const int i = __builtin_ctzll(b);
      if ((escaped >> i) & 1) continue;
      if (i == last) escape_carry_ = 1;  // it escapes the first byte of the next piece
      else escaped |= uint64_t(2) << i;
    }
    const uint64_t strings = prefix_xor(m.quote & ~escaped) ^ in_string_;
    in_string_ = uint64_t(int64_t(strings) >> 63);
    uint64_t structural = (m.open | m.close | (stop_at_comma ? m.comma : 0)) & ~strings;
    for (; structural != 0; structural &= structural - 1) {
      const int i = __builtin_ctzll(structural);
      const uint64_t bit = uint64_t(1) << i;
      if (m.open & bit) {
        ++depth_;
      } else if (m.close & bit) {
        if (--depth_ < 0) {
          result.stop = Stop::kClose;
          result.at = pos + size_t(i);
          return result;
        }
        if (depth_ == 0) result.last_value_end = pos + size_t(i) + 1;
      } else if (depth_ == 0) {
        result.stop = Stop::kComma;
        result.at = pos + size_t(i);
        return result;
      }
    }
  }
  return result;
}

}  // namespace mlprof::model
