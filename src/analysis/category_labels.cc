#include "analysis/category_labels.h"

#include <array>
#include <string>

namespace mlprof::analysis {

std::string_view category_label(Category c, bool tpu) {
  static constexpr std::array<std::string_view, kNumCategories> kLabels = {
      "Input", "Output", "Compilation", "Kernel launch", "Host compute", "Device-to-device", "Device collectives",
      "Device compute", "Other"};
  if (tpu && c == Category::kKernelLaunch) return "Program launch";
  return kLabels[size_t(c)];
}

std::string_view path_kind_label(PathKind k, bool tpu) {
  switch (k) {
    case PathKind::kInput: return category_label(Category::kInput, tpu);
    case PathKind::kHost: return category_label(Category::kHostCompute, tpu);
    case PathKind::kKernelLaunch: return category_label(Category::kKernelLaunch, tpu);
    case PathKind::kDeviceCompute: return category_label(Category::kDeviceCompute, tpu);
    case PathKind::kCollectives: return category_label(Category::kDeviceCollectives, tpu);
    // The path's own kinds, which no step-time category is.
    case PathKind::kCopies: return "Copies";
    case PathKind::kWaitingForRank: return "Waiting for another rank";
    default: return "Idle (nothing traced)";
  }
}

nlohmann::json path_labels_json(bool tpu) {
  nlohmann::json j = nlohmann::json::object();
  for (size_t k = 0; k < kNumPathKinds; ++k) j[std::string(kPathKindKeys[k])] = path_kind_label(PathKind(k), tpu);
  j["top_ops"] = "Top ops";
  j["top_kernels"] = tpu ? "Top device ops" : "Top kernels";
  j["kernel"] = tpu ? "device op" : "kernel";  // what one of top_kernels is
  return j;
}

nlohmann::json category_labels_json(bool tpu) {
  nlohmann::json j = nlohmann::json::object();
  for (size_t c = 0; c < kNumCategories; ++c) j[std::string(kCategoryKeys[c])] = category_label(Category(c), tpu);
  return j;
}

}  // namespace mlprof::analysis
