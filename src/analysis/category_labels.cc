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

nlohmann::json category_labels_json(bool tpu) {
  nlohmann::json j = nlohmann::json::object();
  for (size_t c = 0; c < kNumCategories; ++c) j[std::string(kCategoryKeys[c])] = category_label(Category(c), tpu);
  return j;
}

}  // namespace mlprof::analysis
