// What planes and lines are, from their names and ids (docs/ARCHITECTURE.md §3.2). Shared by importers so
// that every format ends up with the same kinds.
#pragma once

#include <cstdint>
#include <string_view>

#include "model/profile.h"

namespace mlprof::model {

struct PlaneIdentity {
  PlaneKind kind = PlaneKind::kOther;
  std::string_view device_type;       // "GPU" in "/device:GPU:0"
  uint32_t device_ordinal = kNone;    // 0 in "/device:GPU:0"
};

PlaneIdentity identify_plane(std::string_view name);

LineKind identify_line(PlaneKind plane, std::string_view name, int64_t id);

}  // namespace mlprof::model
