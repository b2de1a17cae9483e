// The window of the tools that add up a whole profile (kernel stats, op stats): a run of several
// hosts sums over them and says so; a single host sums over nothing.
#pragma once

#include <cstddef>
#include <string_view>

namespace mlprof::analysis {

inline std::string_view whole_profile_window(size_t hosts) {
  return hosts > 1 ? "the whole profile, summed over its hosts" : "the whole profile";
}

}  // namespace mlprof::analysis
