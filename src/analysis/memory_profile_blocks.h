// The memory profile's table of blocks by address (docs/ARCHITECTURE.md §5.5): for every address an
// allocator's events named, the position of the allocation live there, or none. Walked once
// per event over tens of millions of events, so it is one flat array probed linearly rather
// than a node per block.
#pragma once

#include <cstdint>
#include <vector>

namespace mlprof::analysis {

class MemoryBlockTable {
 public:
  static constexpr uint32_t kNotLive = UINT32_MAX - 1;  // seen, but freed (or only ever freed)

  MemoryBlockTable() : slots_(size_t(1) << kFirstBits) {}

  // The entry for `address`: the position of its live allocation, or kNotLive. An address
  // not seen before is added as kNotLive and `*added` set.
  uint32_t& at(uint64_t address, bool* added) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    Slot* slot = &slots_[probe(address)];
    *added = slot->position == kEmpty;
    if (*added) {
      slot->address = address;
      slot->position = kNotLive;
      ++size_;
    }
    return slot->position;
  }

  // Calls visit(position) for each live allocation, in no particular order.
  template <typename Visit>
  void for_each_live(Visit&& visit) const {
    for (const Slot& s : slots_)
      if (s.position < kNotLive) visit(s.position);
  }

 private:
  static constexpr uint32_t kEmpty = UINT32_MAX;
  static constexpr int kFirstBits = 10;
  struct Slot {
    uint64_t address = 0;
    uint32_t position = kEmpty;
  };

  // The slot holding `address`, or the empty one where it goes. Addresses are aligned, so
  // their low bits say little: the high bits of a multiplicative hash spread them.
  size_t probe(uint64_t address) const {
    const size_t mask = slots_.size() - 1;
    for (size_t i = size_t((address * 0x9E3779B97F4A7C15ull) >> shift_);; i = (i + 1) & mask)
      if (slots_[i].position == kEmpty || slots_[i].address == address) return i;
  }

  void grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    --shift_;
    for (const Slot& s : old)
      if (s.position != kEmpty) slots_[probe(s.address)] = s;
  }

  std::vector<Slot> slots_;  // 2^(64 - shift_) of them, at most half full
  int shift_ = 64 - kFirstBits;
  size_t size_ = 0;
};

}  // namespace mlprof::analysis
