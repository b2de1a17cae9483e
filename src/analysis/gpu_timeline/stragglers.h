// Stragglers across the ranks (hosts) of a run (docs/ARCHITECTURE.md §5.9). In a collective
// call every rank leaves together, so the rank that arrives last waits least. Calls are matched
// across ranks by step number, process group, name and their order in the step
// (collective_calls.h); a rank's lateness at a call is its arrival after the median of the
// other ranks' arrivals, read from the calls' starts where the ranks' clocks agree (their calls
// end together) and otherwise from the others' extra time in the call. A rank's lateness in
// a step is its largest at any call of the step; the straggler is the latest rank, when it is late by at least kMinLateMs per step on
// average; its causes are the ops its calling thread spent more time in
// than the other ranks' median before the calls it was late at, per step. Runs without
// collectives fall back on compute: the straggler is the rank whose GPU compute (or step time)
// is at least kStragglerThresholdPct above the median of the others.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/gpu_timeline/collective_calls.h"
#include "analysis/step_grouping.h"
#include "model/profile.h"

namespace mlprof::analysis {

inline constexpr double kStragglerThresholdPct = 10.0;
inline constexpr double kMinLateMs = 0.5;
inline constexpr size_t kMaxCauses = 5;

struct RankStepTimes {
  size_t rank = 0;  // index into StragglerAnalysis::ranks
  int64_t step_ps = 0, compute_ps = 0, communication_ps = 0, wait_ps = 0;
};

struct StragglerStep {
  int64_t step_num = 0;
  std::vector<RankStepTimes> ranks;
  size_t slowest = 0;          // index into ranks (of this step)
  double slowest_vs_median_pct = 0;  // its compute (or step time) over the others' median
  // From collective calls matched in the step: the rank that arrived latest, and by how much
  // after the others' median (-1 and 0 without matched calls).
  int latest = -1;  // index into StragglerAnalysis::ranks
  double latest_late_ms = 0;
};

// Where the straggler spent more than the others before the calls it was late at.
struct StragglerCause {
  std::string name;      // an op of its calling thread, or kUntracedTime
  double excess_ms = 0;  // per step, over the other ranks' median
};

struct StragglerRank {
  std::string host;
  std::string file;  // its file's name without extension
  size_t steps = 0;
  double step_ms = 0, compute_ms = 0, communication_ms = 0, wait_ms = 0;  // means per step
  size_t slowest_in = 0;  // steps in which it was the slowest
  // Arrival at collective calls matched with other ranks.
  size_t calls_matched = 0;
  double late_ms = 0;     // mean over steps of its latest arrival at a matched call, after the others' median
  size_t latest_in = 0;   // matched calls at which it arrived last
};

struct StragglerAnalysis {
  std::vector<StragglerRank> ranks;  // hosts with steps, in the profile's order
  std::vector<StragglerStep> steps;  // steps run by two or more ranks, by number
  bool uses_gpu_compute = false;     // compute is GPU time (else step time)
  int straggler = -1;                // index into ranks, or -1
  double straggler_vs_median_pct = 0;  // its mean compute over the median of the others'
  // From collective calls, when ranks' calls could be matched.
  size_t matched_calls = 0;            // calls made by two or more ranks
  std::string lateness_from;           // "arrival" or "time_in_call"; empty without matched calls
  std::string late_at;                 // the call the straggler is most late at
  std::vector<StragglerCause> causes;  // of the straggler's lateness, largest first
  double explained_ms = 0;             // their sum, per step
  double late_per_step_ms = 0;         // the straggler's late_ms: what the others wait for it per step
  std::string note;                    // what the analysis could not see, in words
  // Steps and calls that could not be matched across ranks, one line each (collective_mismatch.h).
  std::vector<std::string> mismatches;
};

// What the analysis needs of one host (rank): its analysed steps, in the grouping's order, with
// their GPU times. Computed per host, so that a host read on its own gives the same.
struct RankSteps {
  std::string host;  // host_labels.h: "rank 3", or the file name without extension
  std::string file;  // the file name without extension, to find the file
  bool has_gpu_work = false;  // the host has GPU streams (then compute is GPU time for the run)
  struct Times {
    int64_t step_num = 0;
    int64_t step_ps = 0, compute_ps = 0, communication_ps = 0;
  };
  std::vector<Times> steps;
  std::vector<CollectiveCall> calls;  // its collective calls in those steps, by start
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

// The finding in one sentence ("rank7 arrives 7.5 ms late at all_to_all; before it, ..."), or
// empty without a straggler. The text report, the advice, the pod viewer and the UI say this.
std::string straggler_sentence(const StragglerAnalysis& stragglers);

nlohmann::json to_json(const StragglerAnalysis& stragglers);
std::string to_csv(const StragglerAnalysis& stragglers);  // one row per step and rank

}  // namespace mlprof::analysis
