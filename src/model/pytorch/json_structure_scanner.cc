#include "model/pytorch/json_structure_scanner.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace mlprof::model {
namespace {

// One bit per byte of a 64-byte block for each character that matters.
struct BlockMasks {
  uint64_t quote, backslash, open, close, comma;
};

#if defined(__x86_64__)
uint64_t bits_equal(const __m128i (&v)[4], __m128i c) {
  uint64_t m = 0;
  for (int i = 0; i < 4; ++i) m |= uint64_t(uint32_t(_mm_movemask_epi8(_mm_cmpeq_epi8(v[i], c)))) << (16 * i);
  return m;
}

struct Classify128 {
  BlockMasks operator()(const char* block) const;
};

BlockMasks Classify128::operator()(const char* block) const {
  __m128i v[4], folded[4];
  const __m128i case_bit = _mm_set1_epi8(0x20);
  for (int i = 0; i < 4; ++i) {
    v[i] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(block + 16 * i));
    folded[i] = _mm_or_si128(v[i], case_bit);  // '[' | 0x20 == '{' and ']' | 0x20 == '}'
  }
  return {bits_equal(v, _mm_set1_epi8('"')), bits_equal(v, _mm_set1_epi8('\\')), bits_equal(folded, _mm_set1_epi8('{')),
          bits_equal(folded, _mm_set1_epi8('}')), bits_equal(v, _mm_set1_epi8(','))};
}

[[gnu::target("avx2"), gnu::always_inline]] inline uint64_t bits_equal(__m256i lo, __m256i hi, char c) {
  const __m256i k = _mm256_set1_epi8(c);
  return uint64_t(uint32_t(_mm256_movemask_epi8(_mm256_cmpeq_epi8(lo, k)))) |
         uint64_t(uint32_t(_mm256_movemask_epi8(_mm256_cmpeq_epi8(hi, k)))) << 32;
}

struct Classify256 {
  [[gnu::target("avx2")]] BlockMasks operator()(const char* block) const {
    const __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block));
    const __m256i hi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block + 32));
    const __m256i case_bit = _mm256_set1_epi8(0x20);
    const __m256i folded_lo = _mm256_or_si256(lo, case_bit), folded_hi = _mm256_or_si256(hi, case_bit);
    return {bits_equal(lo, hi, '"'), bits_equal(lo, hi, '\\'), bits_equal(folded_lo, folded_hi, '{'),
            bits_equal(folded_lo, folded_hi, '}'), bits_equal(lo, hi, ',')};
  }
};

bool have_avx2() { return __builtin_cpu_supports("avx2"); }
#else
struct Classify128 {
  BlockMasks operator()(const char* block) const;
};

BlockMasks Classify128::operator()(const char* block) const {
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

int JsonStructureScanner::widest_bits() {
  static const int bits = [] {
#if defined(__x86_64__)
    const char* asked = std::getenv("MLPROF_JSON_SCANNER_BITS");
    if (asked != nullptr && std::strcmp(asked, "128") == 0) return 128;
    return have_avx2() ? 256 : 128;
#else
    return 128;
#endif
  }();
  return bits;
}

JsonStructureScanner::JsonStructureScanner(bool wide) : wide_(wide && widest_bits() >= 256) {}

const char* JsonStructureScanner::kernel_name() const {
#if defined(__x86_64__)
  return wide_ ? "avx2" : "sse2";
#else
  return "scalar";
#endif
}

JsonStructureScanner::Result JsonStructureScanner::scan(const char* text, size_t from, size_t to, bool stop_at_comma) {
  return wide_ ? scan_wide(text, from, to, stop_at_comma) : scan_with<Classify128>(text, from, to, stop_at_comma);
}

#if defined(__x86_64__)
[[gnu::target("avx2")]] JsonStructureScanner::Result JsonStructureScanner::scan_wide(const char* text, size_t from,
                                                                                    size_t to, bool stop_at_comma) {
  return scan_with<Classify256>(text, from, to, stop_at_comma);
}
#else
JsonStructureScanner::Result JsonStructureScanner::scan_wide(const char* text, size_t from, size_t to,
                                                             bool stop_at_comma) {
  return scan_with<Classify128>(text, from, to, stop_at_comma);
}
#endif

template <typename Classify>
[[gnu::always_inline]] inline JsonStructureScanner::Result JsonStructureScanner::scan_with(const char* text, size_t from,
                                                                                         size_t to, bool stop_at_comma) {
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
    const BlockMasks m = Classify()(block);
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
    // A block whose closings cannot bring the depth back to the start (most blocks of an event
    // array: an event ends every few blocks) only moves the depth, by counts.
    const int closes = __builtin_popcountll(m.close & ~strings);
    if (!stop_at_comma && depth_ > closes) {
      depth_ += __builtin_popcountll(m.open & ~strings) - closes;
      continue;
    }
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
