#include "analysis/input_bound.h"

#include <fmt/format.h>

#include "analysis/event_kinds.h"

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

}  // namespace mlprof::analysis
