// The step-time categories as pages name them, one place for the text reports and the JSON the
// UI draws from. A TPU's host launches XLA programs, not kernels: there the launch category
// reads "Program launch".
#pragma once

#include <nlohmann/json.hpp>

#include <string_view>

#include "analysis/step_breakdown.h"

namespace mlprof::analysis {

std::string_view category_label(Category c, bool tpu);
// {"input": "Input", ..., "kernel_launch": "Program launch", ...}: by JSON key (kCategoryKeys).
nlohmann::json category_labels_json(bool tpu);

}  // namespace mlprof::analysis
