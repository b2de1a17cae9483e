// overview_page: per-step breakdown and its statistics, device compute precision, top ops,
// the run environment, the input-bound verdict and what to change first.
#pragma once

#include <nlohmann/json.hpp>

#include <array>
#include <string>
#include <vector>

#include "analysis/framework_op_stats.h"
#include "analysis/input_bound.h"
#include "analysis/run_environment.h"
#include "analysis/step_breakdown.h"
#include "analysis/tf_data_bottleneck_analysis.h"
#include "model/profile.h"

namespace mlprof::analysis {

struct OverviewStep {
  int64_t step_num = 0;
  std::string host;
  int64_t begin_ps = 0;  // since the profile's origin
  int64_t total_ps = 0;
  std::array<int64_t, kNumCategories> breakdown_ps{};
};

struct TopOp {
  std::string name, type;
  bool on_device = false;
  uint64_t occurrences = 0;
  int64_t self_ps = 0;
  double self_pct = 0, cumulative_pct = 0;
};

struct OverviewPage {
  std::vector<OverviewStep> steps;  // the step-time graph
  SeriesStats step_time_ms;
  std::array<SeriesStats, kNumCategories> category_ms;
  std::array<double, kNumCategories> breakdown_pct{};  // of the average step time
  InputBound input_bound;
  double bits16_pct = 0, bits32_pct = 0;  // of device compute time
  std::vector<TopOp> top_ops;             // on the device, else on the host
  bool top_ops_on_device = false;
  RunEnvironment environment;
  std::vector<std::string> recommendations;
  bool whole_profile = false;  // no step markers: the profile is one pseudo step
  std::string step_marker;     // what marked the steps ("_r", "FunctionRun", ...)
  size_t steps_found = 0;      // before dropping partial steps
};

// From analyses already computed (the CLI and benchmarks compute each once).
OverviewPage compute_overview_page(const model::Profile& profile, const StepAnalysis& steps,
                                   const FrameworkOpStats& op_stats, const TfDataBottleneckAnalysis& tf_data);
OverviewPage compute_overview_page(const model::Profile& profile);

nlohmann::json to_json(const OverviewPage& page);
std::string to_csv(const OverviewPage& page);  // one row per step

}  // namespace mlprof::analysis
