#include "analysis/critical_path/path_kind.h"

#include <utility>

namespace mlprof::analysis {

std::optional<PathKind> path_kind_of_target(std::string_view target) {
  for (size_t k = 0; k < kNumPathKinds; ++k)
    if (kPathKindKeys[k] == target) return PathKind(k);
  // The step breakdown's categories (§5.2) that are not kinds already.
  static constexpr std::pair<std::string_view, PathKind> kCategories[] = {
      {"output", PathKind::kCopies},          {"device_to_device", PathKind::kCopies},
      {"compilation", PathKind::kHost},       {"host_compute", PathKind::kHost},
      {"device_collectives", PathKind::kCollectives}, {"other", PathKind::kIdle},
  };
  for (const auto& [name, kind] : kCategories)
    if (name == target) return kind;
  return std::nullopt;
}

}  // namespace mlprof::analysis
