// Maps the ids a file uses for its metadata (small integers, usually dense) to our indices.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace mlprof::model {

class IdMap {
 public:
  static constexpr uint32_t kAbsent = UINT32_MAX;

  void set(int64_t id, uint32_t value) {
    if (id >= 0 && id < kDenseLimit) {
      if (size_t(id) >= dense_.size()) dense_.resize(size_t(id) + 1, kAbsent);
      dense_[size_t(id)] = value;
    } else {
      sparse_[id] = value;
    }
  }
  uint32_t get(int64_t id) const {
    if (id >= 0 && size_t(id) < dense_.size()) return dense_[size_t(id)];
    if (id >= 0 && id < kDenseLimit) return kAbsent;
    auto it = sparse_.find(id);
    return it == sparse_.end() ? kAbsent : it->second;
  }

 private:
  static constexpr int64_t kDenseLimit = 1 << 22;  // 16 MiB at most for the dense part
  std::vector<uint32_t> dense_;
  std::unordered_map<int64_t, uint32_t> sparse_;
};

}  // namespace mlprof::model
