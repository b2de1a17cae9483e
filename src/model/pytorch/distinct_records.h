// Records that a trace repeats (kernel launches, memory blocks, op arguments), each distinct one
// kept once: an open-addressed table of indices into the records, so that finding one costs a
// probe into a small array and one compare, not a node of a hash map per record.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

namespace mlprof::model::kineto {

template <typename Record>
class DistinctRecords {
 public:
  static_assert(sizeof(Record) % 8 == 0, "a record is 64-bit words with no padding");

  // The index in `records` of a record equal to `r` (as == says, with the same bits' hash),
  // appending it when there is none. `records` grows only through this.
  uint32_t index_of(const Record& r, std::vector<Record>* records) {
    if (2 * (records->size() + 1) > slots_.size()) grow();
    const uint64_t h = hash(r);
    const size_t mask = slots_.size() - 1;
    for (size_t i = size_t(h) & mask;; i = (i + 1) & mask) {
      const uint32_t slot = slots_[i];
      if (slot == 0) {
        slots_[i] = uint32_t(records->size()) + 1;
        hashes_.push_back(h);
        records->push_back(r);
        return slots_[i] - 1;
      }
      if (hashes_[slot - 1] == h && (*records)[slot - 1] == r) return slot - 1;
    }
  }

 private:
  static uint64_t hash(const Record& r) {
    uint64_t words[sizeof(Record) / 8], h = 0;
    std::memcpy(words, &r, sizeof words);
    for (uint64_t w : words) h = (h ^ w) * 0x100000001B3ull + (h >> 29);
    // The low bits pick the slot: mix the high ones down.
    h ^= h >> 31;
    h *= 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 29);
  }

  void grow() {
    std::vector<uint32_t> slots(slots_.empty() ? 1024 : 2 * slots_.size(), 0);
    const size_t mask = slots.size() - 1;
    for (uint32_t k = 0; k < hashes_.size(); ++k) {
      size_t i = size_t(hashes_[k]) & mask;
      while (slots[i] != 0) i = (i + 1) & mask;
      slots[i] = k + 1;
    }
    slots_.swap(slots);
  }

  std::vector<uint32_t> slots_;   // index + 1 into the records; 0: empty
  std::vector<uint64_t> hashes_;  // of each record, by index
};

}  // namespace mlprof::model::kineto
