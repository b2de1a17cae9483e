#include "analysis/gpu_timeline/gpu_timeline_ranks.h"

#include <algorithm>

#include "analysis/gpu_timeline/gpu_timeline.h"
#include "analysis/units.h"

namespace mlprof::analysis {

std::vector<GpuTimelineRankRow> gpu_timeline_rank_rows(const GpuTimeline& t) {
  std::vector<GpuTimelineRankRow> rows;
  for (const HostGpuTimeline& h : t.hosts) {
    GpuTimelineRankRow r;
    r.host = h.host;
    r.file = h.file;
    if (const auto& b = h.breakdown) {
      r.span_ms = ms(b->span_ps);
      r.idle_pct = b->idle_pct();
      // Shares of the same window as idle, so a row reads on one scale.
      auto of_span = [&](GpuWorkKind k) {
        return b->span_ps > 0 ? 100.0 * double(b->times.union_ps[size_t(k)]) / double(b->span_ps) : 0.0;
      };
      r.computation_pct = of_span(GpuWorkKind::kComputation);
      r.communication_pct = of_span(GpuWorkKind::kCommunication);
      r.memory_pct = of_span(GpuWorkKind::kMemory);
    }
    if (const auto& idle = h.idle) {
      std::array<int64_t, kNumIdleCauses> cause{};
      for (const StreamIdleTime& s : idle->streams)
        for (size_t c = 0; c < kNumIdleCauses; ++c) cause[c] += s.cause_ps[c];
      const int64_t total = cause[0] + cause[1] + cause[2];
      auto pct = [&](IdleCause c) { return total > 0 ? 100.0 * double(cause[size_t(c)]) / double(total) : 0.0; };
      r.idle_ms = ms(total);
      r.host_wait_pct = pct(IdleCause::kHostWait);
      r.kernel_wait_pct = pct(IdleCause::kKernelWait);
      r.other_wait_pct = pct(IdleCause::kOther);
    }
    if (const auto& o = h.overlap) {
      r.communication_ms = ms(o->communication_ps);
      if (const auto pct = o->overlap_pct()) r.overlap_pct = *pct;
    }
    if (const auto& k = h.launches) {
      r.launches = double(k->launches);
      r.median_launch_delay_us = k->median_launch_delay_us;
      r.launch_bound = double(k->short_kernels);
    }
    if (const auto& q = h.queue) {
      int64_t max = 0;
      double mean = 0;
      for (const StreamQueueLength& s : *q) max = std::max(max, s.max), mean = std::max(mean, s.mean);
      r.queue_max = double(max);
      r.queue_mean = mean;  // the busiest stream's
    }
    rows.push_back(std::move(r));
  }
  return rows;
}

nlohmann::json to_json(const std::vector<GpuTimelineRankRow>& rows) {
  nlohmann::json out = nlohmann::json::array();
  for (const GpuTimelineRankRow& r : rows) {
    nlohmann::json j = {{"host", r.host}, {"file", r.file}};
    auto put = [&](const char* key, const std::optional<double>& v) {
      if (v) j[key] = *v;
    };
    put("span_ms", r.span_ms);
    put("idle_pct", r.idle_pct);
    put("computation_pct", r.computation_pct);
    put("communication_pct", r.communication_pct);
    put("memory_pct", r.memory_pct);
    put("idle_ms", r.idle_ms);
    put("host_wait_pct", r.host_wait_pct);
    put("kernel_wait_pct", r.kernel_wait_pct);
    put("other_wait_pct", r.other_wait_pct);
    put("communication_ms", r.communication_ms);
    put("overlap_pct", r.overlap_pct);
    put("launches", r.launches);
    put("median_launch_delay_us", r.median_launch_delay_us);
    put("launch_bound", r.launch_bound);
    put("queue_max", r.queue_max);
    put("queue_mean", r.queue_mean);
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace mlprof::analysis
