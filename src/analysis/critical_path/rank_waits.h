// Ranks waiting for each other in collective calls (docs/ARCHITECTURE.md §5.9b): when several
// ranks of a job are read together, a rank that enters a collective call before the last one
// arrives waits for it. The calls are matched across ranks as the stragglers analysis matches
// them (collective_calls.h), and only where the ranks' clocks agree (they leave the call
// together), so that the starts say who arrived last.
#pragma once

#include <vector>

#include "analysis/step_breakdown.h"
#include "model/profile.h"

namespace mlprof::analysis {

struct RankWait {
  model::EventIndex early = model::kNone;  // a rank's call (a collective kernel or host op)
  model::EventIndex late = model::kNone;   // the same call on the rank that arrived last
  uint32_t early_host = 0;
};

struct RankWaits {
  std::vector<RankWait> waits;
  // Per host: what to add to its times to put them on one clock with the others (the ranks
  // leave each call together: the median over its calls of how much earlier it left them).
  std::vector<int64_t> clock_offset_ps;
};

// The waits of the analysed steps, or none when fewer than two ranks ran at the same time.
RankWaits find_rank_waits(const model::Profile& p, const StepAnalysis& steps);

}  // namespace mlprof::analysis
