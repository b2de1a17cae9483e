#include "analysis/comm_compute_overlap.h"

#include "analysis/gpu_work_order.h"

namespace mlprof::analysis {

std::optional<double> CommComputeOverlap::overlap_pct() const {
  if (communication_ps <= 0) return std::nullopt;
  return 100.0 * double(overlap_ps) / double(communication_ps);
}

CommComputeOverlap compute_comm_compute_overlap(const HostGpuActivity& host) {
  SortedUnion comm(true), comp(true);
  visit_by_start(host, [&](const GpuWork& w) {
    if (w.kind == GpuWorkKind::kCommunication) comm.add(w.begin_ps, w.end_ps);
    else if (w.kind == GpuWorkKind::kComputation) comp.add(w.begin_ps, w.end_ps);
  });
  CommComputeOverlap o;
  const auto& comm_union = comm.intervals();
  const auto& comp_union = comp.intervals();
  for (const auto& [b, e] : comm_union) o.communication_ps += e - b;
  for (const auto& [b, e] : comp_union) o.computation_ps += e - b;
  // Both lists are sorted and disjoint: one merge walk gives their intersection.
  size_t i = 0, j = 0;
  while (i < comm_union.size() && j < comp_union.size()) {
    const int64_t b = std::max(comm_union[i].first, comp_union[j].first);
    const int64_t e = std::min(comm_union[i].second, comp_union[j].second);
    if (e > b) o.overlap_ps += e - b;
    if (comm_union[i].second < comp_union[j].second) ++i;
    else ++j;
  }
  return o;
}

}  // namespace mlprof::analysis
