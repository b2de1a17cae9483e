// Communication/computation overlap (docs/ARCHITECTURE.md §5.9): the share of communication
// time (union of communication work) during which computation work runs, as Holistic Trace
// Analysis' CommunicationAnalysis.get_comm_comp_overlap computes it (copies and sets play no
// part), and the communication time that overlaps no computation.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>

#include "analysis/gpu_timeline/gpu_activity.h"

namespace mlprof::analysis {

struct CommComputeOverlap {
  int64_t communication_ps = 0;
  int64_t computation_ps = 0;
  int64_t overlap_ps = 0;
  int64_t exposed_communication_ps() const { return communication_ps - overlap_ps; }
  std::optional<double> overlap_pct() const;  // none without communication
};

CommComputeOverlap compute_comm_compute_overlap(const HostGpuActivity& host);

// The comm_compute_overlap part of the GPU timeline's JSON (gpu_timeline.h).
nlohmann::json to_json(const CommComputeOverlap& overlap);

}  // namespace mlprof::analysis
