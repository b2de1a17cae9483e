// The op of a piece of device work launched from the host: the innermost event around its
// launch (joined by correlation id) that is not itself a CUDA or HIP call. Built on first need.
#pragma once

#include <cstdint>
#include <unordered_map>

#include "model/profile.h"

namespace mlprof::analysis {

class LaunchOps {
 public:
  explicit LaunchOps(const model::Profile& p) : p_(p) {}

  // The op event, or kNone.
  model::EventIndex op_of(model::EventIndex work);

 private:
  static uint64_t key(uint32_t host, uint64_t correlation_id) { return uint64_t(host) << 48 ^ correlation_id; }
  void build();

  const model::Profile& p_;
  bool built_ = false;
  std::unordered_map<uint64_t, model::EventIndex> ops_;
};

}  // namespace mlprof::analysis
