#include "analysis/gpu_timeline/comm_compute_overlap.h"

#include "analysis/gpu_timeline/gpu_work_order.h"
#include "analysis/interval_union.h"
#include "analysis/units.h"

namespace mlprof::analysis {

std::optional<double> CommComputeOverlap::overlap_pct() const {
  if (communication_ps <= 0) return std::nullopt;
  return 100.0 * double(overlap_ps) / double(communication_ps);
}

CommComputeOverlap compute_comm_compute_overlap(const HostGpuActivity& host) {
  // Communication first (its union is short); then computation's union interval by interval,
  // each met against it as it closes, so that computation's many intervals are never kept.
  // Communication is a few items among many: picked out stream by stream, then put in start
  // order, rather than visiting all the work in start order.
  std::vector<std::pair<int64_t, int64_t>> communication;
  for (const GpuWork& w : host.work)
    if (w.kind == GpuWorkKind::kCommunication) communication.emplace_back(host.begin_ps(w), host.end_ps(w));
  SortedUnion comm(true);
  visit_by_begin(communication, [&](const TimeInterval& i) { comm.add(i.first, i.second); });
  CommComputeOverlap o;
  const auto& comm_union = comm.intervals();
  o.communication_ps = comm.length();
  size_t next = 0;  // the first communication interval that may meet later computation
  auto meet = [&](int64_t b, int64_t e) {
    o.computation_ps += e - b;
    while (next < comm_union.size() && comm_union[next].second <= b) ++next;
    for (size_t i = next; i < comm_union.size() && comm_union[i].first < e; ++i)
      o.overlap_ps += std::min(e, comm_union[i].second) - std::max(b, comm_union[i].first);
  };
  bool open = false;
  int64_t begin = 0, end = 0;
  visit_by_start(host, [&](const GpuWork& w) {
    if (w.kind != GpuWorkKind::kComputation) return;
    if (open && host.begin_ps(w) <= end) {
      end = std::max(end, host.end_ps(w));
      return;
    }
    if (open && end > begin) meet(begin, end);
    open = true, begin = host.begin_ps(w), end = host.end_ps(w);
  });
  if (open && end > begin) meet(begin, end);
  return o;
}

nlohmann::json to_json(const CommComputeOverlap& o) {
  const auto pct = o.overlap_pct();
  return {{"overlap_pct", pct ? nlohmann::json(*pct) : nlohmann::json(nullptr)},
          {"communication_us", us(o.communication_ps)},
          {"computation_us", us(o.computation_ps)},
          {"overlap_us", us(o.overlap_ps)},
          {"exposed_communication_us", us(o.exposed_communication_ps())}};
}

}  // namespace mlprof::analysis
