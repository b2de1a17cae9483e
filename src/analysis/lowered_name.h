// A name in lower case with the set of adjacent character pairs it holds, for classifying a
// name by many parts: a part with a pair the name lacks is not in it, case aside, so most
// searches of a long kernel name end at a few bit tests.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include "model/string_contains.h"

namespace mlprof::analysis {

class LoweredName {
 public:
  explicit LoweredName(std::string_view name) : low_(name) {
    for (char& c : low_)
      if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
    for (size_t i = 1; i < low_.size(); ++i) {
      const uint32_t b = bit(low_[i - 1], low_[i]);
      pairs_[b >> 6] |= uint64_t(1) << (b & 63);
    }
  }

  const std::string& low() const { return low_; }

  // Whether `s` (the name or low()) holds `part`; a part not in low(), case aside, is
  // answered without a search.
  bool holds(std::string_view s, std::string_view part) const {
    for (size_t i = 1; i < part.size(); ++i) {
      const uint32_t b = bit(lower(part[i - 1]), lower(part[i]));
      if (!((pairs_[b >> 6] >> (b & 63)) & 1)) return false;
    }
    return model::contains(s, part);
  }
  bool holds_any(std::string_view s, std::initializer_list<std::string_view> parts) const {
    for (std::string_view p : parts)
      if (holds(s, p)) return true;
    return false;
  }

 private:
  static char lower(char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; }
  // Six bits of each character: letters, digits and punctuation stay apart.
  static uint32_t bit(char a, char b) { return (uint32_t(uint8_t(a)) & 63) << 6 | (uint32_t(uint8_t(b)) & 63); }

  std::string low_;
  std::array<uint64_t, 64> pairs_{};
};

}  // namespace mlprof::analysis
