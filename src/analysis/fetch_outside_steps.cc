#include "analysis/fetch_outside_steps.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "analysis/interval_union.h"

namespace mlprof::analysis {

FetchOutsideSteps fetch_outside_steps(const model::Profile& p, const StepAnalysis& sa) {
  FetchOutsideSteps out;
  if (sa.whole_profile) return out;
  std::vector<std::vector<TimeInterval>> windows(p.hosts.size());  // per host, sorted and disjoint
  for (const StepBreakdown& s : sa.steps) {
    windows[s.host].push_back({s.begin_ps, s.begin_ps + s.duration_ps});
    out.steps_ps += s.duration_ps;
  }
  for (const model::Line& line : p.lines) {
    const model::Plane& plane = p.planes[line.plane];
    const auto& in_steps = windows[plane.host];
    if (plane.kind != model::PlaneKind::kHostThreads || in_steps.empty()) continue;
    for (model::EventIndex e = line.first_event; e < line.first_event + line.num_events; ++e) {
      if (p.events.parent[e] != model::kNone || !p.name(e).starts_with("enumerate(DataLoader)")) continue;
      out.outside_ps += p.duration_ps(e) - covered_length(in_steps, {p.start_ps(e), p.end_ps(e)});
    }
  }
  return out;
}

std::optional<std::string> fetch_outside_steps_advice(const FetchOutsideSteps& fetch, Framework framework) {
  const double pct = fetch.pct();
  if (pct < 5) return std::nullopt;
  const std::string_view how =
      framework == Framework::kPyTorchPython
          ? "fetch it inside: iterate the loader inside the step (mlprof.steps, or call next(it) after prof.step()), "
            "so that the step's breakdown counts the wait as input"
          : "fetch it inside: open the step marker before the batch is fetched, so that the step's breakdown counts "
            "the wait as input";
  return fmt::format("{:.0f} % of the time is in enumerate(DataLoader), outside every step: {}.", pct, how);
}

}  // namespace mlprof::analysis
