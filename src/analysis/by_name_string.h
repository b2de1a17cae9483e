// Per event name, a value its string alone decides, worked out once per distinct string: names
// that differ only by their stats share a string (a PyTorch trace makes one per kernel launch
// shape and per allocator record, thousands of one string).
#pragma once

#include <vector>

#include "model/profile.h"

namespace mlprof::analysis {

// of(NameIndex) -> T, asked for the first name of each string.
template <typename T, typename Of>
std::vector<T> by_name_string(const model::Profile& p, Of&& of) {
  std::vector<T> out(p.names.size());
  std::vector<model::NameIndex> first(p.strings.size(), model::kNone);
  for (model::NameIndex n = 0; n < p.names.size(); ++n) {
    const model::StringId s = p.names[n].name;
    if (s >= first.size()) {
      out[n] = of(n);
    } else if (first[s] == model::kNone) {
      first[s] = n;
      out[n] = of(n);
    } else {
      out[n] = out[first[s]];
    }
  }
  return out;
}

}  // namespace mlprof::analysis
