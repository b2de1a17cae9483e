#include "model/string_table.h"

#include <algorithm>
#include <cstring>

#include "model/well_known_strings.h"

namespace mlprof::model {
namespace {
constexpr size_t kBlockBytes = 64 * 1024;
}

StringTable::StringTable() {
  for (std::string_view s : kWellKnownStrings) intern(s);
}

StringTable::StringTable(const StringTable* base) : base_(base), base_size_(StringId(base->size())) {}

char* StringTable::store(std::string_view s) {
  // Long strings get a block of their own so that short ones keep filling the current block.
  if (s.size() > kBlockBytes / 4) {
    large_.push_back(std::make_unique<char[]>(s.size()));
    std::memcpy(large_.back().get(), s.data(), s.size());
    return large_.back().get();
  }
  if (s.size() > block_size_ - block_used_) {
    blocks_.push_back(std::make_unique<char[]>(kBlockBytes));
    block_size_ = kBlockBytes;
    block_used_ = 0;
  }
  char* p = blocks_.back().get() + block_used_;
  std::memcpy(p, s.data(), s.size());
  block_used_ += s.size();
  return p;
}

StringId StringTable::intern(std::string_view s) {
  if (base_ != nullptr) {
    const StringId id = base_->find(s);
    if (id < base_size_) return id;
  }
  auto it = ids_.find(s);
  if (it != ids_.end()) return it->second;
  const StringId id = StringId(size());
  const std::string_view stored = s.empty() ? std::string_view() : std::string_view(store(s), s.size());
  views_.push_back(stored);
  ids_.emplace(stored, id);
  return id;
}

StringId StringTable::find(std::string_view s) const {
  if (base_ != nullptr) {
    const StringId id = base_->find(s);
    if (id < base_size_) return id;
  }
  auto it = ids_.find(s);
  return it == ids_.end() ? kNoString : it->second;
}

size_t StringTable::bytes_used() const {
  // Blocks, large strings, the views, and about 48 bytes per hash-map node.
  size_t bytes = blocks_.size() * kBlockBytes + views_.capacity() * sizeof(std::string_view) +
                 ids_.size() * 48;
  for (const auto& v : views_)
    if (v.size() > kBlockBytes / 4) bytes += v.size();
  return bytes;
}

}  // namespace mlprof::model
