// The op that each external id names, for GPU work to name the op that launched it. A trace
// has an op per few events, so this is one flat table probed in place (no node per op to
// allocate and free, as a std::unordered_map has); the first op written under an id keeps it.
// Where the ids are dense in places (PyTorch counts them up from 1; traces joined end to end
// count on from far apart) it is an array in pages of 4096 ids instead, the pages the ids fall
// on only: no probing, and ids that come in order read it in order.
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

  // The ops in their order, in place of any held: in pages where those the ids fall on hold
  // at most about four times as many ids as there are ops (4 bytes an id: no more than the
  // table's 16-byte slots take, at most three quarters full; GPU work and runtime calls take
  // ids between the ops'), and lie not so far apart that their directory takes more than an
  // entry an op; else in the table.
  void assign(const std::vector<std::pair<int64_t, StringId>>& ops) {
    slots_.clear();
    dense_.clear();
    pages_.clear();
    directory_.clear();
    size_ = 0;
    if (ops.empty()) return;
    for (const auto& [id, op] : ops)
      if (pages_.empty() || pages_.back() != page_of(id)) pages_.push_back(page_of(id));
    std::sort(pages_.begin(), pages_.end());
    pages_.erase(std::unique(pages_.begin(), pages_.end()), pages_.end());
    if (pages_.size() * kPageSize > kIdsPerOp * ops.size() + kDenseSlack ||
        uint64_t(pages_.back() - pages_.front()) >= ops.size() + kPageSize) {
      pages_.clear();
      reserve(ops.size());
      for (const auto& [id, op] : ops) emplace(id, op);
      return;
    }
    directory_.assign(size_t(pages_.back() - pages_.front()) + 1, kNoPage);
    for (size_t k = 0; k < pages_.size(); ++k) directory_[size_t(pages_[k] - pages_.front())] = uint32_t(k);
    dense_.assign(pages_.size() * kPageSize, kNoString);
    for (const auto& [id, op] : ops) {
      StringId& at = dense_[dense_slot(id)];
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
      const size_t at = dense_slot(id);
      return at != kNoSlot && dense_[at] != kNoString ? dense_[at] : kEmptyString;
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

  static constexpr int kPageBits = 12;
  static constexpr size_t kPageSize = size_t(1) << kPageBits;
  static constexpr size_t kNoSlot = SIZE_MAX;
  static constexpr uint32_t kNoPage = UINT32_MAX;
  static int64_t page_of(int64_t id) { return id >> kPageBits; }  // rounds down, negative ids too

  // Where `id` is in dense_, or kNoSlot when its page holds no op.
  size_t dense_slot(int64_t id) const {
    const uint64_t entry = uint64_t(page_of(id) - pages_.front());  // page numbers are 52 bits: no overflow
    if (entry >= directory_.size() || directory_[entry] == kNoPage) return kNoSlot;
    return size_t(directory_[entry]) * kPageSize + size_t(uint64_t(id) & (kPageSize - 1));
  }

  // The pages' ops into the table, for an id added after assign().
  void to_table() {
    std::vector<StringId> dense;
    std::vector<int64_t> pages;
    dense.swap(dense_);
    pages.swap(pages_);
    directory_.clear();
    size_ = 0;
    for (size_t i = 0; i < dense.size(); ++i)
      if (dense[i] != kNoString)
        emplace(int64_t(uint64_t(pages[i / kPageSize]) * kPageSize + i % kPageSize), dense[i]);
  }

  void rehash(size_t capacity) {
    std::vector<Slot> old(capacity);
    old.swap(slots_);
    for (const Slot& s : old)
      if (s.id != kEmptySlot) slots_[find_slot(s.id)] = s;
  }

  static constexpr size_t kIdsPerOp = 4;
  static constexpr size_t kDenseSlack = 4 * kPageSize;  // ids the pages may hold beyond kIdsPerOp an op

  std::vector<Slot> slots_;  // a power of two in size, at most three quarters full
  // When not empty: page k holds the ops of ids pages_[k] * kPageSize + i at k * kPageSize + i,
  // kNoString where none; pages_ ascends, and directory_[p - pages_[0]] is page p's k (kNoPage
  // for a page that holds none).
  std::vector<StringId> dense_;
  std::vector<int64_t> pages_;
  std::vector<uint32_t> directory_;
  size_t size_ = 0;
};

}  // namespace mlprof::model::kineto
