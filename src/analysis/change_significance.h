// When a change between two runs matters, and how it is said as a percentage. One rule for
// `mlprof diff` (text, JSON, CSV) and the UI's compare page, which reads the JSON's fields:
// a few µs in a 100 ms step are noise, not a regression, and "+196562.6 %" from an almost-zero
// baseline says less than "from ≈0".
#pragma once

#include <optional>
#include <string_view>

namespace mlprof::analysis {

// A change matters when it is at least this long, this share of the larger side, and this share
// of the baseline's step time (a part of the step that moves by 0.1 % of it is noise).
inline constexpr double kMinChangeMs = 0.01;
inline constexpr double kMinChangeShare = 0.02;
inline constexpr double kMinStepShare = 0.005;
// Below this share of the other side, a baseline counts as almost nothing: no percentage.
inline constexpr double kNearZeroShare = 0.01;
// Above this many percent, a change reads better as a ratio ("x25" rather than "+2400.0%").
inline constexpr double kMaxPercentShown = 1000;

enum class ChangeSignificance { kNone, kWorse, kBetter };  // times: longer is worse
std::string_view significance_name(ChangeSignificance s);   // "none", "worse", "better"

// a: the baseline, b: the new value, step_ms: the baseline's average step (0 when unknown).
ChangeSignificance change_significance(double a, double b, double step_ms);

struct ChangePercent {
  std::optional<double> pct;    // none when the baseline is ≈0 of the new value
  std::optional<double> ratio;  // b / a, when the percentage is too large to read well
};
ChangePercent change_percent(double a, double b);

}  // namespace mlprof::analysis
