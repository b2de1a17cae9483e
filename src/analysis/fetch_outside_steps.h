// A loop that fetches its batch between steps (§5.2): the natural PyTorch loop marks its steps
// with prof.step() after `for batch in loader:` fetched the batch, so `enumerate(DataLoader)#...`
// runs outside every ProfilerStep#N and the steps' breakdown never sees the wait. The overview
// says how much time that is.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "analysis/run_environment.h"
#include "analysis/step_breakdown.h"
#include "model/profile.h"

namespace mlprof::analysis {

struct FetchOutsideSteps {
  int64_t outside_ps = 0;  // top-level enumerate(DataLoader) time on the steps' hosts outside every analysed step
  int64_t steps_ps = 0;    // the analysed steps' time
  FetchOutsideSteps& operator+=(const FetchOutsideSteps& o) {
    outside_ps += o.outside_ps, steps_ps += o.steps_ps;
    return *this;
  }
  // The fetches' share of the loop's time (the steps and the fetches between them), in percent.
  double pct() const { return outside_ps > 0 ? 100.0 * double(outside_ps) / double(outside_ps + steps_ps) : 0.0; }
};

// Nothing for the pseudo step of a profile without steps (there every fetch is in the step).
FetchOutsideSteps fetch_outside_steps(const model::Profile& profile, const StepAnalysis& steps);

// "83 % of the time is in enumerate(DataLoader), outside every step: fetch it inside ...", from 5 %.
std::optional<std::string> fetch_outside_steps_advice(const FetchOutsideSteps& fetch, Framework framework);

}  // namespace mlprof::analysis
