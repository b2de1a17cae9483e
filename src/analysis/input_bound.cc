#include "analysis/input_bound.h"

#include <fmt/format.h>

#include "analysis/event_kinds.h"
#include "analysis/step_breakdown.h"

namespace mlprof::analysis {

InputWaitName input_wait_name(std::string_view name) {
  return {.input_request = is_input_request_name(name), .iterator = is_iterator_name(name)};
}

std::string_view verdict_name(InputBoundVerdict v) {
  switch (v) {
    case InputBoundVerdict::kHighly: return "HIGHLY";
    case InputBoundVerdict::kModerately: return "MODERATELY";
    case InputBoundVerdict::kPotentially: return "POTENTIALLY";
    case InputBoundVerdict::kNot: break;
  }
  return "NOT";
}

InputBound input_bound_verdict(double input_pct, double other_pct) {
  InputBound b;
  b.input_pct = input_pct;
  b.other_pct = other_pct;
  if (input_pct >= kHighlyInputBoundPct) b.verdict = InputBoundVerdict::kHighly;
  else if (input_pct >= kModeratelyInputBoundPct) b.verdict = InputBoundVerdict::kModerately;
  else if (other_pct >= kPotentiallyOtherPct) b.verdict = InputBoundVerdict::kPotentially;
  if (b.verdict == InputBoundVerdict::kPotentially)
    b.explanation = fmt::format(
        "Your program is POTENTIALLY input-bound: {:.1f}% of the step time is waiting for input, but {:.1f}% "
        "is not covered by any traced activity and may hide input work.",
        input_pct, other_pct);
  else
    b.explanation = fmt::format("Your program is {} input-bound: {:.1f}% of the step time is spent waiting for input.",
                                verdict_name(b.verdict), input_pct);
  return b;
}

InputBound input_bound_of(const StepAnalysis& sa) {
  std::vector<double> totals, inputs, others;
  for (const StepBreakdown& s : sa.steps) {
    const auto c = s.category_ps();
    totals.push_back(double(s.duration_ps) / 1e9);
    inputs.push_back(double(c[size_t(Category::kInput)]) / 1e9);
    others.push_back(double(c[size_t(Category::kOther)]) / 1e9);
  }
  const double step = series_stats(totals).avg;
  return input_bound_verdict(step > 0 ? 100 * series_stats(inputs).avg / step : 0,
                             step > 0 ? 100 * series_stats(others).avg / step : 0);
}

}  // namespace mlprof::analysis
