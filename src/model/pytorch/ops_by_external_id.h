// The op that each external id names, for GPU work to name the op that launched it. A trace
// has an op per few events, so this is one flat table probed in place (no node per op to
// allocate and free, as a std::unordered_map has); the first op written under an id keeps it.
// Where the ids are dense (PyTorch counts them up from 1) it is an array indexed by id instead:
// no probing, and ids that come in order read it in order.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "model/string_table.h"
#include "model/well_known_strings.h"

namespace mlprof::model::kineto {

class OpsByExternalId {
 public:
  // Room for `count` ids without growing.
  void reserve(size_t count) {
    size_t capacity = 16;
    while (3 * capacity < 4 * count) capacity *= 2;
    if (capacity > slots_.size()) rehash(capacity);
  }

  // The ops in their order, in place of any held: in an array by id where the ids span at
  // most about twice as many values as there are ops, else in the table.
  void assign(const std::vector<std::pair<int64_t, StringId>>& ops) {
    slots_.clear();
    dense_.clear();
    size_ = 0;
    if (ops.empty()) return;
    int64_t lo = ops.front().first, hi = lo;
    for (const auto& [id, op] : ops) lo = std::min(lo, id), hi = std::max(hi, id);
    const uint64_t span = uint64_t(hi) - uint64_t(lo);  // hi >= lo: no wrap
    if (span >= 2 * uint64_t(ops.size()) + kDenseSlack) {
      reserve(ops.size());
      for (const auto& [id, op] : ops) emplace(id, op);
      return;
    }
    dense_first_ = lo;
    dense_.assign(size_t(span) + 1, kNoString);
    for (const auto& [id, op] : ops) {
      StringId& at = dense_[size_t(uint64_t(id) - uint64_t(lo))];
      if (at == kNoString) at = op, ++size_;
    }
  }

  // Adds `op` under `id` unless the id already names one. `id` is never kEmptySlot.
  void emplace(int64_t id, StringId op) {
    if (!dense_.empty()) to_table();
    if (4 * (size_ + 1) > 3 * slots_.size()) rehash(slots_.empty() ? 16 : 2 * slots_.size());
    Slot& slot = slots_[find_slot(id)];
    if (slot.id != kEmptySlot) return;
    slot = {id, op};
    ++size_;
  }

  // The op under `id`, or kEmptyString.
  StringId find(int64_t id) const {
    if (!dense_.empty()) {
      const uint64_t at = uint64_t(id) - uint64_t(dense_first_);
      return at < dense_.size() && dense_[at] != kNoString ? dense_[at] : kEmptyString;
    }
    if (slots_.empty() || id == kEmptySlot) return kEmptyString;
    const Slot& slot = slots_[find_slot(id)];
    return slot.id == id ? slot.op : kEmptyString;
  }

  size_t size() const { return size_; }

  static constexpr int64_t kEmptySlot = INT64_MIN;  // kineto::kNoId: never an op's id

 private:
  struct Slot {
    int64_t id = kEmptySlot;
    StringId op = kEmptyString;
  };

  // The index of the slot holding `id`, or of the empty one where it would go (linear probing).
  size_t find_slot(int64_t id) const {
    const size_t mask = slots_.size() - 1;
    // Ids mostly count up: 64 ids in a row share a run of slots (one page of the table for
    // many ids), and the runs are scattered so that no pattern of ids makes long chains.
    const uint64_t x = uint64_t(id), run = ((x >> 6) * 0x9E3779B97F4A7C15ull) >> 20;
    size_t at = size_t(run << 6 | (x & 63)) & mask;
    while (slots_[at].id != kEmptySlot && slots_[at].id != id) at = (at + 1) & mask;
    return at;
  }

  // The array's ops into the table, for an id added after assign().
  void to_table() {
    std::vector<StringId> dense;
    dense.swap(dense_);
    size_ = 0;
    for (size_t i = 0; i < dense.size(); ++i)
      if (dense[i] != kNoString) emplace(int64_t(uint64_t(dense_first_) + i), dense[i]);
  }

  void rehash(size_t capacity) {
    std::vector<Slot> old(capacity);
    old.swap(slots_);
    for (const Slot& s : old)
      if (s.id != kEmptySlot) slots_[find_slot(s.id)] = s;
  }

  static constexpr uint64_t kDenseSlack = 4096;  // ids an array may span beyond twice the ops

  std::vector<Slot> slots_;  // a power of two in size, at most three quarters full
  std::vector<StringId> dense_;  // when not empty: the op of id dense_first_ + i, or kNoString
  int64_t dense_first_ = 0;
  size_t size_ = 0;
};

}  // namespace mlprof::model::kineto
