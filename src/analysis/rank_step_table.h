// One row per rank of a run's steps (docs/ARCHITECTURE.md §5.9): each rank's mean step and its
// §5.2 categories side by side, on one scale (ms per step), before any per-step detail. The
// overview and the input pipeline analysis start with it on a run of several ranks.
#pragma once

#include <nlohmann/json.hpp>

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/step_breakdown.h"

namespace mlprof::analysis {

struct RankStepRow {
  std::string host;  // host_labels.h: "rank 3", or the file name without extension
  std::string file;  // the host's name in the run, which the trace viewer opens it by
  size_t steps = 0;
  double step_ms = 0;                                // mean per step
  std::array<double, kNumCategories> category_ms{};  // means per step
  double input_pct() const;                          // of the mean step
  Category bottleneck() const;                       // the category taking the most time
};

// Rows in the order their ranks' first steps come.
class RankStepRows {
 public:
  void add(std::string_view host, std::string_view file, int64_t step_ps,
           const std::array<int64_t, kNumCategories>& category_ps);
  std::vector<RankStepRow> rows() const;  // empty for fewer than two ranks

 private:
  std::vector<RankStepRow> sums_;
};

nlohmann::json to_json(const std::vector<RankStepRow>& rows);

}  // namespace mlprof::analysis
