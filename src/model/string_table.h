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
  StringTable(const StringTable&) = delete;
  StringTable& operator=(const StringTable&) = delete;
  StringTable(StringTable&&) = default;
  StringTable& operator=(StringTable&&) = default;

  StringId intern(std::string_view s);
  StringId find(std::string_view s) const;
  std::string_view view(StringId id) const { return views_[id]; }
  size_t size() const { return views_.size(); }
  size_t bytes_used() const;

 private:
  char* store(std::string_view s);

  std::vector<std::unique_ptr<char[]>> blocks_;  // stable storage: views never move
  std::vector<std::unique_ptr<char[]>> large_;   // one allocation per long string
  size_t block_used_ = 0;
  size_t block_size_ = 0;
  std::vector<std::string_view> views_;
  std::unordered_map<std::string_view, StringId> ids_;
};

}  // namespace mlprof::model
