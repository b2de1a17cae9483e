// JSON numbers read exactly as fixed-point integers. Kineto writes timestamps as microseconds
// since the epoch with a nanosecond fraction ("1712195495406752.8"): a double keeps only
// about a quarter of a microsecond of that, so the digits are read as text instead.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace mlprof::model::kineto {

// Sets *out to the number × 10^decimals, truncating further digits. The token may be quoted
// (some writers quote numbers) and may use an exponent. False when it is not a number or the
// result does not fit in int64.
inline bool parse_fixed_slowly(std::string_view token, int decimals, int64_t* out);

// How many of the 8 bytes at p are digits before the first that is not (0 to 8), and the value
// of those digits, without a branch per digit.
inline int leading_digits(const char* p, uint64_t* value) {
  uint64_t x;
  std::memcpy(&x, p, 8);
  x ^= 0x3030303030303030ull;  // a digit's byte is now its value
  // Nonzero in each byte that is not a digit: its high nibble, or its low one past 9. (A byte
  // past the first such one may read wrong, from the addition's carry; only the first counts.)
  const uint64_t bad = (x & 0xF0F0F0F0F0F0F0F0ull) | ((x + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull);
  const int n = bad == 0 ? 8 : __builtin_ctzll(bad) / 8;
  if (n == 0) return 0;
  x <<= 8 * (8 - n);  // the n digits at the top, zeros (leading zero digits) below
  x = (x * 10 + (x >> 8)) & 0x00FF00FF00FF00FFull;
  x = (x * 100 + (x >> 16)) & 0x0000FFFF0000FFFFull;
  *value = (x * 10000 + (x >> 32)) & 0xFFFFFFFFull;
  return n;
}

// parse_fixed for a token with at least 32 readable bytes after its end, as every token inside
// a batch of text with simdjson's padding (64 bytes) has (an empty one may point nowhere): the
// usual shapes (integers of up to 16 digits, a short fraction) read 16 bytes at once, without a
// branch on how many digits there are (ids, durations and timestamps come mixed, so such a
// branch would be mispredicted); anything else as parse_fixed. Inlined where it is called, so
// that each caller's kind of number has its own branch history.
[[gnu::always_inline]] inline bool parse_fixed_padded(std::string_view token, int decimals, int64_t* out);

// parse_fixed, out of line (pytorch/number.cc): the shapes parse_fixed_padded leaves, for a token
// that has its padding (negative numbers go back to parse_fixed_padded for their magnitude).
[[gnu::cold]] bool parse_fixed_rarely(std::string_view token, int decimals, int64_t* out);

// For each byte of x (the text's bytes, each xor 0x30, so that a digit's byte is its value): a
// nonzero high nibble unless it is a digit. A byte past the first such one may read wrong, from
// the addition's carry; only the first counts.
[[gnu::always_inline]] inline uint64_t non_digits(uint64_t x) {
  return (x & 0xF0F0F0F0F0F0F0F0ull) | ((x + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull);
}

// The value of the first n (0 to 8) digits of x (as non_digits takes it).
[[gnu::always_inline]] inline uint64_t digits_value(uint64_t x, int n) {
  x = n == 0 ? 0 : x << (8 * (8 - n));  // the n digits at the top, zeros (leading zero digits) below
  x = (x * 10 + (x >> 8)) & 0x00FF00FF00FF00FFull;
  x = (x * 100 + (x >> 16)) & 0x0000FFFF0000FFFFull;
  return (x * 10000 + (x >> 32)) & 0xFFFFFFFFull;
}

#if defined(__SSE2__)
// Whether the 16 bytes at p are all digits, and *value their value when they are: pairs, then
// fours, then eights of digits combined lane by lane (a few vector instructions where the same
// in 64-bit registers takes two sets of shifts, masks and multiplications).
[[gnu::always_inline]] inline bool sixteen_digits(const char* p, uint64_t* value) {
  const __m128i x = _mm_sub_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)), _mm_set1_epi8('0'));
  // A digit's byte is now 0 to 9; any other byte, taken unsigned, is more.
  const __m128i over = _mm_subs_epu8(x, _mm_set1_epi8(9));
  if (_mm_movemask_epi8(_mm_cmpeq_epi8(over, _mm_setzero_si128())) != 0xFFFF) return false;
  // Each 16-bit lane holds two digits, the first in its low byte.
  const __m128i pairs =
      _mm_add_epi16(_mm_mullo_epi16(_mm_and_si128(x, _mm_set1_epi16(0xFF)), _mm_set1_epi16(10)), _mm_srli_epi16(x, 8));
  const __m128i fours = _mm_madd_epi16(pairs, _mm_set1_epi32(100 | 1 << 16));
  const __m128i eights = _mm_madd_epi16(_mm_packs_epi32(fours, fours), _mm_set1_epi32(10000 | 1 << 16));
  const uint64_t both = uint64_t(_mm_cvtsi128_si64(eights));
  *value = (both & 0xFFFFFFFFull) * 100000000 + (both >> 32);
  return true;
}
#endif

// digits_value for 1 to 8 digits: no case for none.
[[gnu::always_inline]] inline uint64_t some_digits_value(uint64_t x, int n) {
  x <<= 8 * (8 - n);
  x = (x * 10 + (x >> 8)) & 0x00FF00FF00FF00FFull;
  x = (x * 100 + (x >> 16)) & 0x0000FFFF0000FFFFull;
  return (x * 10000 + (x >> 32)) & 0xFFFFFFFFull;
}

// Whether the bytes from q to end are all whitespace, with at least 16 readable bytes from q: a
// run of whitespace after a number (a newline and an indent) in one look. False when q is past
// end, or for a run longer than 16 (the caller's general way then says).
[[gnu::always_inline]] inline bool spaces_only(const char* q, const char* end) {
  const ptrdiff_t n = end - q;
#if defined(__SSE2__)
  if (n <= 0 || n > 16) return n == 0;
  const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q));
  const __m128i spaces =
      _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8(' ')), _mm_cmpeq_epi8(x, _mm_set1_epi8('\n'))),
                   _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('\r')), _mm_cmpeq_epi8(x, _mm_set1_epi8('\t'))));
  const unsigned wanted = (1u << n) - 1;
  return (unsigned(_mm_movemask_epi8(spaces)) & wanted) == wanted;
#else
  return n == 0;
#endif
}

inline bool parse_fixed(std::string_view token, int decimals, int64_t* out) {
  // The common shape first: an unquoted decimal of at most 19 digits (they fit in 64 bits
  // unsigned; microseconds since the epoch with a nanosecond fraction have 19), no exponent.
  const char *p = token.data(), *end = p + token.size();
  const bool negative = p < end && *p == '-';
  p += negative;
  uint64_t v = 0, eight;
  int digits = 0, fraction = 0;
  // Up to eight digits at a time while they cannot pass the 19th (timestamps have 16 before the point).
  static constexpr uint64_t kPow10[9] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};
  while (end - p >= 8) {
    const int n = leading_digits(p, &eight);
    if (n == 0 || digits + n > 19) break;
    v = v * kPow10[n] + eight;
    digits += n;
    p += n;
    if (n < 8) break;
  }
  // Digits past the 19th go the slow way below; accumulating them here would overflow v.
  for (; p < end && unsigned(*p - '0') < 10; ++p, ++digits)
    if (digits < 19) v = v * 10 + unsigned(*p - '0');
  if (p < end && *p == '.') {
    for (++p; p < end && unsigned(*p - '0') < 10; ++p)
      if (fraction < decimals) {
        if (digits < 19) v = v * 10 + unsigned(*p - '0');
        ++fraction, ++digits;
      }
  }
  while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) ++p;
  if (p != end || digits == 0 || digits > 19) return parse_fixed_slowly(token, decimals, out);
  // The decimals not written, in one multiplication (durations such as "19" take six).
  static constexpr uint64_t kScale[20] = {1,           10,           100,           1000,           10000,
                                          100000,      1000000,      10000000,      100000000,      1000000000,
                                          10000000000, 100000000000, 1000000000000, 10000000000000, 100000000000000,
                                          1000000000000000, 10000000000000000, 100000000000000000,
                                          1000000000000000000, 10000000000000000000ull};
  if (fraction < decimals) {
    if (decimals - fraction >= 20) {
      if (v != 0) return false;
    } else if (__builtin_mul_overflow(v, kScale[decimals - fraction], &v)) {
      return false;
    }
  }
  if (v > uint64_t(INT64_MAX) + negative) return false;
  *out = negative ? int64_t(0 - v) : int64_t(v);
  return true;
}

inline bool parse_fixed_padded(std::string_view token, int decimals, int64_t* out) {
  if (token.empty()) return false;  // a field that is not there: its view points nowhere
  // Digits are read from the start, without first trimming the token's end: the padding makes
  // the bytes past it readable, and digits that run past the end (a view shorter than its
  // number) send it the general way.
  const char *p = token.data(), *end = p + token.size();
  static constexpr uint64_t kPow10[9] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};
  uint64_t lo;
  std::memcpy(&lo, p, 8);
  lo ^= 0x3030303030303030ull;
  const uint64_t bad_lo = non_digits(lo);
  const int n_lo = bad_lo == 0 ? 8 : __builtin_ctzll(bad_lo) / 8;
  // A sign, a quote or no number at all: the general way. Few numbers in traces are negative
  // (some memory events' sizes), so that the usual shapes need not look for a sign.
  if (n_lo == 0) return parse_fixed_rarely(token, decimals, out);
  // The commonest shape, an integer of fewer than eight digits that ends the token, maybe with
  // whitespace (ids, durations): with at most eight decimals it cannot overflow.
  if (n_lo < 8 && decimals <= 8 && (p + n_lo == end || spaces_only(p + n_lo, end))) {
    *out = int64_t(some_digits_value(lo, n_lo) * kPow10[decimals]);
    return true;
  }
  uint64_t v;
  int n = n_lo;
  // The next eight only for a number that fills the first: each caller's numbers mostly have
  // one length (timestamps 16 digits, ids fewer than 8), so that this branch is predicted.
  if (n_lo == 8) {
#if defined(__SSE2__)
    // Exactly sixteen digits (timestamps in microseconds): all in one vector.
    if (end - p == 16 && decimals <= 8) {
      uint64_t sixteen;
      if (sixteen_digits(p, &sixteen)) {
        if (__builtin_mul_overflow(sixteen, kPow10[decimals], &sixteen) || sixteen > uint64_t(INT64_MAX)) return false;
        *out = int64_t(sixteen);
        return true;
      }
    }
#endif
    uint64_t hi;
    std::memcpy(&hi, p + 8, 8);
    hi ^= 0x3030303030303030ull;
    const uint64_t bad_hi = non_digits(hi);
    const int n_hi = bad_hi == 0 ? 8 : __builtin_ctzll(bad_hi) / 8;
    v = digits_value(lo, 8) * kPow10[n_hi] + digits_value(hi, n_hi);
    n += n_hi;
    // An integer of up to 16 digits that ends the token (timestamps in microseconds).
    if (p + n == end && decimals <= 8) {
      if (__builtin_mul_overflow(v, kPow10[decimals], &v) || v > uint64_t(INT64_MAX)) return false;
      *out = int64_t(v);
      return true;
    }
    // Sixteen that may go on: the general way.
    if (n == 16 && unsigned(p[16] - '0') < 10) return parse_fixed_rarely(token, decimals, out);
  } else {
    v = some_digits_value(lo, n_lo);
  }
  const char* q = p + n;
  int digits = n, fraction = 0;
  if (*q == '.') {
    uint64_t eight;
    std::memcpy(&eight, q + 1, 8);
    eight ^= 0x3030303030303030ull;
    const uint64_t bad = non_digits(eight);
    const int written = bad == 0 ? 8 : __builtin_ctzll(bad) / 8;
    // Digits to drop, or more than 18 in all: the general way.
    if (written == 8 || written > decimals || digits + written > 18) return parse_fixed_rarely(token, decimals, out);
    v = v * kPow10[written] + digits_value(eight, written);
    fraction = written;
    digits += written;
    q += 1 + written;
  }
  // What follows the digits in the token is whitespace, or it is another shape.
  if (q != end && !spaces_only(q, end)) return parse_fixed_rarely(token, decimals, out);
  if (digits > 18 || decimals - fraction > 8) return parse_fixed_rarely(token, decimals, out);
  if (__builtin_mul_overflow(v, kPow10[decimals - fraction], &v) || v > uint64_t(INT64_MAX)) return false;
  *out = int64_t(v);
  return true;
}

// Any JSON number, quoted or with an exponent, with 128-bit headroom.
inline bool parse_fixed_slowly(std::string_view token, int decimals, int64_t* out) {
  size_t i = 0, n = token.size();
  while (n > 0 && (token[n - 1] == ' ' || token[n - 1] == '\n' || token[n - 1] == '\r' || token[n - 1] == '\t')) --n;
  if (n >= 2 && token[0] == '"' && token[n - 1] == '"') ++i, --n;
  bool negative = false;
  if (i < n && (token[i] == '-' || token[i] == '+')) negative = token[i++] == '-';
  // All significant digits as one integer, and the power of ten that scales it.
  constexpr unsigned __int128 kLimit = (unsigned __int128)1 << 120;
  unsigned __int128 mantissa = 0;
  int64_t scale = decimals;
  bool any_digit = false, dot = false;
  for (; i < n; ++i) {
    const char c = token[i];
    if (c >= '0' && c <= '9') {
      any_digit = true;
      if (mantissa < kLimit / 10) {
        mantissa = mantissa * 10 + unsigned(c - '0');
        if (dot) --scale;
      } else if (!dot) {
        ++scale;  // a digit too many to hold: the magnitude still grows
      }
    } else if (c == '.' && !dot) {
      dot = true;
    } else {
      break;
    }
  }
  if (!any_digit) return false;
  if (i < n && (token[i] == 'e' || token[i] == 'E')) {
    ++i;
    bool exp_negative = false;
    if (i < n && (token[i] == '-' || token[i] == '+')) exp_negative = token[i++] == '-';
    int64_t exponent = 0;
    bool exp_digit = false;
    for (; i < n && token[i] >= '0' && token[i] <= '9'; ++i) {
      exp_digit = true;
      if (exponent < 100000) exponent = exponent * 10 + (token[i] - '0');
    }
    if (!exp_digit) return false;
    scale += exp_negative ? -exponent : exponent;
  }
  if (i != n) return false;
  for (; scale < 0 && mantissa != 0; ++scale) mantissa /= 10;
  for (; scale > 0 && mantissa != 0; --scale) {
    if (mantissa > kLimit / 10) return false;
    mantissa *= 10;
  }
  const unsigned __int128 max = negative ? (unsigned __int128)INT64_MAX + 1 : (unsigned __int128)INT64_MAX;
  if (mantissa > max) return false;
  *out = negative ? int64_t(-(__int128)mantissa) : int64_t(mantissa);
  return true;
}

}  // namespace mlprof::model::kineto
