#include "format/utf8_text.h"

#include <cstdint>
#include <cstring>

namespace mlprof::format {
namespace {

// The length of the valid sequence at `s[i]`, or 0 with `*bad` set to the bytes of the maximal
// invalid subpart to replace (at least 1).
size_t valid_sequence(std::string_view s, size_t i, size_t* bad) {
  const auto b = [&](size_t k) { return static_cast<uint8_t>(s[k]); };
  const uint8_t c = b(i);
  size_t need;
  uint8_t low = 0x80, high = 0xBF;  // the second byte's range
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) need = 1;
  else if (c == 0xE0) need = 2, low = 0xA0;
  else if (c == 0xED) need = 2, high = 0x9F;  // no surrogates
  else if (c >= 0xE1 && c <= 0xEF) need = 2;
  else if (c == 0xF0) need = 3, low = 0x90;
  else if (c == 0xF4) need = 3, high = 0x8F;  // nothing past U+10FFFF
  else if (c >= 0xF1 && c <= 0xF3) need = 3;
  else {
    *bad = 1;
    return 0;
  }
  for (size_t k = 1; k <= need; ++k) {
    const bool ok = i + k < s.size() &&
                    (k == 1 ? b(i + k) >= low && b(i + k) <= high : b(i + k) >= 0x80 && b(i + k) <= 0xBF);
    if (!ok) {
      *bad = k;
      return 0;
    }
  }
  return need + 1;
}

}  // namespace

bool is_valid_utf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    // Eight ASCII bytes at a time: the common case.
    if (i + 8 <= s.size()) {
      uint64_t word;
      std::memcpy(&word, s.data() + i, 8);
      if ((word & 0x8080808080808080ull) == 0) {
        i += 8;
        continue;
      }
    }
    size_t bad = 0;
    const size_t n = valid_sequence(s, i, &bad);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string make_valid_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 8);
  size_t i = 0;
  while (i < s.size()) {
    size_t bad = 0;
    const size_t n = valid_sequence(s, i, &bad);
    if (n > 0) {
      out.append(s.data() + i, n);
      i += n;
    } else {
      out += "\xEF\xBF\xBD";
      i += bad;
    }
  }
  return out;
}

std::string hex_bytes(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(bytes.size() * 2, '0');
  for (size_t i = 0; i < bytes.size(); ++i) {
    const auto c = static_cast<uint8_t>(bytes[i]);
    out[2 * i] = kDigits[c >> 4];
    out[2 * i + 1] = kDigits[c & 15];
  }
  return out;
}

}  // namespace mlprof::format
