// Interned strings: every name and string stat value of a profile is stored once and referred
// to by a 32-bit id, so that columns stay small and names compare as integers.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace mlprof::model {

using StringId = uint32_t;
inline constexpr StringId kNoString = UINT32_MAX;  // what find() returns for an unknown string

class StringTable {
 public:
  // Id 0 is the empty string; ids 1.. are the well-known names of well_known_strings.h, so
  // that analysis code can compare against them as constants.
  StringTable();
  // A table over `base`, which must not change while this one is used (threads may share it):
  // strings already in `base` keep their ids there, others get ids from base->size() on, as
  // `base` would give them in the same order.
  explicit StringTable(const StringTable* base);
  StringTable(const StringTable&) = delete;
  StringTable& operator=(const StringTable&) = delete;
  StringTable(StringTable&&) = default;
  StringTable& operator=(StringTable&&) = default;

  StringId intern(std::string_view s);
  StringId find(std::string_view s) const;
  std::string_view view(StringId id) const { return id < base_size_ ? base_->view(id) : views_[id - base_size_]; }
  size_t size() const { return base_size_ + views_.size(); }
  size_t bytes_used() const;

 private:
  char* store(std::string_view s);

  std::vector<std::unique_ptr<char[]>> blocks_;  // stable storage: views never move
  std::vector<std::unique_ptr<char[]>> large_;   // one allocation per long string
  size_t block_used_ = 0;
  size_t block_size_ = 0;
  const StringTable* base_ = nullptr;
  StringId base_size_ = 0;
  std::vector<std::string_view> views_;  // of ids from base_size_ on
  std::unordered_map<std::string_view, StringId> ids_;
};

}  // namespace mlprof::model
