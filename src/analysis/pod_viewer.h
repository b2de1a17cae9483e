// pod_viewer (docs/ARCHITECTURE.md §5.8): the step-time breakdown of every worker (host) of a run side
// by side: per worker and step the §5.2 categories, each worker's bottleneck category, and
// which worker is slowest, so that a straggler in a multi-worker job stands out.
#pragma once

#include <nlohmann/json.hpp>

#include <array>
#include <string>
#include <vector>

#include "analysis/device_chips.h"
#include "analysis/step_breakdown.h"
#include "analysis/gpu_timeline/stragglers.h"
#include "model/profile.h"

namespace mlprof::analysis {

struct PodWorkerStep {
  int64_t step_num = 0;
  int64_t begin_ps = 0;  // since the profile's origin, comparable across workers
  int64_t total_ps = 0;
  std::array<int64_t, kNumCategories> breakdown_ps{};
};

struct PodWorker {
  std::string host;  // host_labels.h: "rank 3", or the file name without extension
  std::string file;  // the file name without extension, to find the file
  std::vector<PodWorkerStep> steps;  // by start
  SeriesStats step_time_ms;
  std::array<double, kNumCategories> breakdown_ms{};   // average per step
  std::array<double, kNumCategories> breakdown_pct{};  // of the average step time
  // The category taking the most time in an average step; only meaningful with steps.
  Category bottleneck = Category::kOther;
};

// One step across the workers that ran it.
struct PodStep {
  struct Share {
    size_t worker = 0;  // index into PodViewer::workers
    size_t step = 0;    // index into that worker's steps
  };
  int64_t step_num = 0;
  std::vector<Share> shares;  // one per worker that ran the step
  size_t slowest_worker = 0;  // the one whose share took longest
};

struct PodViewer {
  std::vector<PodWorker> workers;  // in the run's host order
  std::vector<PodStep> steps;      // by step number
  int slowest_worker = -1;         // by average step time; -1 when no worker has steps
  double slowest_vs_fastest_pct = 0;  // how much longer its average step is than the fastest's
  bool whole_profile = false;      // no step markers: no per-step view
  // Per step, each rank's compute, communication and wait in collectives, and the straggler.
  StragglerAnalysis stragglers;
  // One row per TPU chip (or GPU) that ran XLA ops, whatever the hosts (device_chips.h).
  DeviceChips chips;
};

PodViewer compute_pod_viewer(const model::Profile& profile, const StepAnalysis& steps);
PodViewer compute_pod_viewer(const model::Profile& profile);

// What the pod viewer reads of one host: its analysed steps in the analysis' order (times since
// the profile's origin) and their GPU times. Per host, so that hosts read apart and summarised
// (host_summary.h) give what the whole run gives.
struct PodHost {
  std::string host;  // host_labels.h
  std::string file;
  int64_t recorded_rank = -1;  // model::Host::rank: to label the hosts of several files together
  std::vector<PodWorkerStep> steps;
  RankSteps rank;  // for the stragglers
};
// One per host of the profile, in its order; `with_gpu_times`: fill `rank` (the stragglers').
std::vector<PodHost> pod_hosts(const model::Profile& profile, const StepAnalysis& steps, bool with_gpu_times);
// The pod viewer of a run's hosts, in the run's order; `whole_profile`: no host has steps.
PodViewer compute_pod_viewer(std::vector<PodHost> hosts, bool whole_profile);

nlohmann::json to_json(const PodViewer& pod);
// One row per worker and step; for a profile with chips, one row per chip (device_chips.h).
std::string to_csv(const PodViewer& pod);

}  // namespace mlprof::analysis
