// Stragglers across the ranks (hosts) of a run (docs/ARCHITECTURE.md §5.9): per step that
// several ranks ran (matched by step number), each rank's step time, GPU compute time (union
// of computation work in its step window), communication time, and the time it waited in
// collectives for the others. In a collective every rank finishes together, so the rank that
// arrives last waits least: a rank's wait is estimated as its communication time less the
// shortest communication time of any rank in that step. The straggler of a step is the rank
// with the most compute (the most step time on ranks without GPU work); a rank is the run's
// straggler when its mean is at least kStragglerThresholdPct above the median of the others.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/step_grouping.h"
#include "model/profile.h"

namespace mlprof::analysis {

inline constexpr double kStragglerThresholdPct = 10.0;

struct RankStepTimes {
  size_t rank = 0;  // index into StragglerAnalysis::ranks
  int64_t step_ps = 0, compute_ps = 0, communication_ps = 0, wait_ps = 0;
};

struct StragglerStep {
  int64_t step_num = 0;
  std::vector<RankStepTimes> ranks;
  size_t slowest = 0;          // index into ranks (of this step)
  double slowest_vs_median_pct = 0;  // its compute (or step time) over the others' median
  int64_t others_wait_ps = 0;  // what the other ranks waited in collectives, in all
};

struct StragglerRank {
  std::string host;
  size_t steps = 0;
  double step_ms = 0, compute_ms = 0, communication_ms = 0, wait_ms = 0;  // means per step
  size_t slowest_in = 0;  // steps in which it was the slowest
};

struct StragglerAnalysis {
  std::vector<StragglerRank> ranks;  // hosts with steps, in the profile's order
  std::vector<StragglerStep> steps;  // steps run by two or more ranks, by number
  bool uses_gpu_compute = false;     // compute is GPU time (else step time)
  int straggler = -1;                // index into ranks, or -1
  double straggler_vs_median_pct = 0;  // its mean compute over the median of the others'
  double others_wait_ms = 0;           // mean per step of what the others waited for it
};

// What the analysis needs of one host (rank): its analysed steps, in the grouping's order, with
// their GPU times. Computed per host, so that a host read on its own gives the same.
struct RankSteps {
  std::string host;
  bool has_gpu_work = false;  // the host has GPU streams (then compute is GPU time for the run)
  struct Times {
    int64_t step_num = 0;
    int64_t step_ps = 0, compute_ps = 0, communication_ps = 0;
  };
  std::vector<Times> steps;
};

struct GpuActivity;
StragglerAnalysis compute_stragglers(const model::Profile& profile, const StepGrouping& grouping);
// From the GPU work already collected over the analysed steps (GpuScope::kAnalysedSteps).
StragglerAnalysis compute_stragglers(const model::Profile& profile, const StepGrouping& grouping,
                                     const GpuActivity& steps_activity);
// Every host of the profile, in its order.
std::vector<RankSteps> rank_steps(const model::Profile& profile, const StepGrouping& grouping,
                                  const GpuActivity& steps_activity);
// The analysis of a run's hosts, in the run's order.
StragglerAnalysis compute_stragglers(const std::vector<RankSteps>& hosts);

nlohmann::json to_json(const StragglerAnalysis& stragglers);
std::string to_csv(const StragglerAnalysis& stragglers);  // one row per step and rank

}  // namespace mlprof::analysis
