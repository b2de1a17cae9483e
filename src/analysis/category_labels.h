// The step-time categories as pages name them, one place for the text reports and the JSON the
// UI draws from. A TPU's host launches XLA programs, not kernels: there the launch category
// reads "Program launch".
#pragma once

#include <nlohmann/json.hpp>

#include <string_view>

#include "analysis/critical_path/path_kind.h"
#include "analysis/step_breakdown.h"

namespace mlprof::analysis {

std::string_view category_label(Category c, bool tpu);
// {"input": "Input", ..., "kernel_launch": "Program launch", ...}: by JSON key (kCategoryKeys).
nlohmann::json category_labels_json(bool tpu);

// The critical path's kinds (path_kind.h) in the same words where a kind is a category
// ("Program launch" on a TPU), and its lists: "Top ops", "Top kernels" ("Top device ops" on a TPU).
std::string_view path_kind_label(PathKind k, bool tpu);
// {"input": "Input", ..., "top_ops": "Top ops", "top_kernels": "Top device ops", "kernel":
// "device op"}: by JSON key, and what one of top_kernels is called.
nlohmann::json path_labels_json(bool tpu);

}  // namespace mlprof::analysis
