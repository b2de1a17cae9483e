#include "analysis/gpu_timeline/gpu_timeline.h"

#include <fmt/format.h>

#include "analysis/csv.h"
#include "analysis/gpu_timeline/gpu_timeline_ranks.h"
#include "analysis/host_labels.h"
#include "analysis/units.h"

namespace mlprof::analysis {

using nlohmann::json;


HostGpuTimeline compute_host_gpu_timeline(const model::Profile& p, const HostGpuActivity& host,
                                          const GpuTimelineOptions& o) {
  HostGpuTimeline h;
  h.host = h.file = host.name;
  h.scope_note = host.scope_note;
  h.warnings = host.warnings;
  if (o.parts & kGpuTimeBreakdownPart) h.breakdown = compute_gpu_time_breakdown(host);
  if (o.parts & kGpuIdleTimePart) {
    h.idle = compute_gpu_idle_time(p, host, o.max_listed);
    for (const IdleGap& g : h.idle->largest) {
      h.gap_next_names.emplace_back(p.name(g.next));
      h.gap_launch_ops.emplace_back(launching_op(p, g.launch));
    }
  }
  if (o.parts & kCommComputeOverlapPart) h.overlap = compute_comm_compute_overlap(host);
  if (o.parts & kKernelLaunchStatsPart) h.launches = compute_kernel_launch_stats(p, host, o.max_listed);
  if (o.parts & kGpuQueueLengthPart) h.queue = compute_gpu_queue_length(p, host, o.max_queue_points);
  return h;
}

GpuTimeline compute_gpu_timeline(const model::Profile& profile, const StepGrouping& grouping,
                                 const GpuTimelineOptions& options) {
  GpuTimeline t;
  t.scope = options.scope;
  t.parts = options.parts;
  const GpuActivity activity = collect_gpu_activity(profile, grouping, {options.scope, options.round_like_hta});
  const std::vector<std::string> labels = host_labels(profile);
  for (const HostGpuActivity& host : activity.hosts) {
    t.hosts.push_back(compute_host_gpu_timeline(profile, host, options));
    t.hosts.back().host = labels[host.host];
  }
  return t;
}

nlohmann::json to_json(const GpuTimeline& t) {
  json hosts = json::array();
  for (const HostGpuTimeline& h : t.hosts) {
    // The window every figure of the host covers: the scope's, in words.
    json j = {{"host", h.host}, {"file", h.file}, {"scope_note", h.scope_note}, {"window", h.scope_note}};
    if (!h.warnings.empty()) j["warnings"] = h.warnings;
    if (h.breakdown) j["gpu_time_breakdown"] = to_json(*h.breakdown);
    if (h.idle) j["gpu_idle_time"] = to_json(*h.idle, h.gap_next_names, h.gap_launch_ops);
    if (h.overlap) j["comm_compute_overlap"] = to_json(*h.overlap);
    if (h.launches) j["kernel_launch_stats"] = to_json(*h.launches);
    if (h.queue) j["gpu_queue_length"] = to_json(*h.queue);
    hosts.push_back(std::move(j));
  }
  return {{"scope", gpu_scope_key(t.scope)}, {"ranks", to_json(gpu_timeline_rank_rows(t))}, {"hosts", hosts}};
}

std::string to_csv(const GpuTimeline& t) {
  std::string out;
  append_csv_row(out, {"host", "device", "stream", "busy_us", "computation_us", "communication_us", "memory_us",
                       "other_us", "idle_us", "host_wait_us", "kernel_wait_us", "other_wait_us", "queue_max",
                       "queue_mean"});
  for (const HostGpuTimeline& h : t.hosts) {
    const size_t n = h.breakdown ? h.breakdown->streams.size() : h.idle ? h.idle->streams.size()
                                                                       : h.queue ? h.queue->size() : 0;
    for (size_t s = 0; s < n; ++s) {
      std::vector<std::string> row = {h.host, "", "", "", "", "", "", "", "", "", "", "", "", ""};
      auto num = [](double v) { return fmt::format("{:.3f}", v); };
      if (h.breakdown) {
        const GpuStreamTime& st = h.breakdown->streams[s];
        row[1] = std::to_string(st.device_ordinal);
        row[2] = std::to_string(st.stream_id);
        row[3] = num(us(st.times.busy_ps));
        for (size_t k = 0; k < kNumGpuWorkKinds; ++k) row[4 + k] = num(us(st.times.union_ps[k]));
      }
      if (h.idle) {
        const StreamIdleTime& st = h.idle->streams[s];
        row[1] = std::to_string(st.device_ordinal);
        row[2] = std::to_string(st.stream_id);
        row[8] = num(us(st.idle_ps()));
        for (size_t c = 0; c < kNumIdleCauses; ++c) row[9 + c] = num(us(st.cause_ps[c]));
      }
      if (h.queue) {
        const StreamQueueLength& q = (*h.queue)[s];
        row[1] = std::to_string(q.device_ordinal);
        row[2] = std::to_string(q.stream_id);
        row[12] = std::to_string(q.max);
        row[13] = num(q.mean);
      }
      append_csv_row(out, row);
    }
  }
  return out;
}

}  // namespace mlprof::analysis
