#include "analysis/change_significance.h"

#include <algorithm>
#include <cmath>

namespace mlprof::analysis {

std::string_view significance_name(ChangeSignificance s) {
  switch (s) {
    case ChangeSignificance::kWorse: return "worse";
    case ChangeSignificance::kBetter: return "better";
    case ChangeSignificance::kNone: break;
  }
  return "none";
}

ChangeSignificance change_significance(double a, double b, double step_ms) {
  const double change = b - a;
  const double threshold =
      std::max({kMinChangeMs, kMinChangeShare * std::max(std::abs(a), std::abs(b)), kMinStepShare * step_ms});
  if (std::abs(change) < threshold) return ChangeSignificance::kNone;
  return change > 0 ? ChangeSignificance::kWorse : ChangeSignificance::kBetter;
}

ChangePercent change_percent(double a, double b) {
  if (a == 0 && b == 0) return {0.0, std::nullopt};
  if (a == 0 || std::abs(a) < kNearZeroShare * std::abs(b)) return {};
  const double pct = 100 * (b - a) / a;
  if (std::abs(pct) > kMaxPercentShown) return {pct, b / a};
  return {pct, std::nullopt};
}

}  // namespace mlprof::analysis
