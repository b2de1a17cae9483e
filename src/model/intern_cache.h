// A cache in front of StringTable::intern for names that repeat event after event: a slot is
// found from the name's length and its first and last eight bytes, and the name compared
// with the one interned there, so that a name seen before costs one compare, not a hash of
// the whole name and a lookup. A miss interns as before, so the ids are the table's own.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "model/string_table.h"

namespace mlprof::model {

class InternCache {
 public:
  explicit InternCache(StringTable* strings) : strings_(*strings), slots_(kSlots) {}

  StringId intern(std::string_view s) { return intern(s, slot_of(s)); }

  // The slot a name goes to: its length and its first and last eight bytes, mixed.
  static uint32_t slot_of(std::string_view s) {
    // Read in loads of a fixed size (a copy of a size known only at run time is a call, or a
    // branch per size): a name shorter than eight is its own first and last bytes.
    const char* p = s.data();
    const size_t size = s.size();
    uint64_t head, tail;
    if (size >= 8) {
      std::memcpy(&head, p, 8);
      std::memcpy(&tail, p + size - 8, 8);
    } else if (size >= 4) {
      uint32_t low, high;  // they overlap: the bytes in both are the same
      std::memcpy(&low, p, 4);
      std::memcpy(&high, p + size - 4, 4);
      head = tail = low | uint64_t(high) << (8 * (size - 4));
    } else if (size > 0) {
      head = tail = uint64_t(uint8_t(p[0])) | uint64_t(uint8_t(p[size / 2])) << (8 * (size / 2)) |
                    uint64_t(uint8_t(p[size - 1])) << (8 * (size - 1));
    } else {
      return 0;
    }
    const uint64_t h = (head * 0x9E3779B97F4A7C15ull) ^ (tail * 0xC2B2AE3D27D4EB4Full) ^ (size * 0x165667B19E3779F9ull);
    return uint32_t(h >> 52) & (kSlots - 1);
  }

  // With the slot worked out beforehand (slot_of), on a thread that does not intern.
  StringId intern(std::string_view s, uint32_t slot_index) {
    if (s.empty()) return strings_.intern(s);
    Slot& slot = slots_[slot_index];
    if (slot.size == s.size() && std::memcmp(slot.data, s.data(), s.size()) == 0) return slot.id;
    const StringId id = strings_.intern(s);
    const std::string_view stored = strings_.view(id);  // stays where it is while the table lives
    slot = {stored.data(), uint32_t(stored.size()), id};
    return id;
  }

 private:
  static constexpr size_t kSlots = 4096;
  struct Slot {
    const char* data = nullptr;
    uint32_t size = 0;  // 0: empty (the empty string is not cached)
    StringId id = kNoString;
  };

  StringTable& strings_;
  std::vector<Slot> slots_;
};

}  // namespace mlprof::model
