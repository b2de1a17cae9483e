#include "analysis/gpu_timeline.h"

#include <fmt/format.h>

#include "analysis/csv.h"
#include "analysis/units.h"

namespace mlprof::analysis {
namespace {

using nlohmann::json;

json kind_times_json(const GpuKindTimes& t, int64_t span_ps) {
  json j = {{"busy_us", us(t.busy_ps)}};
  for (size_t k = 0; k < kNumGpuWorkKinds; ++k)
    j[std::string(gpu_work_kind_key(GpuWorkKind(k))) + "_us"] = us(t.union_ps[k]);
  if (span_ps > 0) j["idle_pct"] = 100.0 * double(span_ps - t.busy_ps) / double(span_ps);
  return j;
}

json breakdown_json(const GpuTimeBreakdown& b) {
  json kinds = json::object();
  for (GpuWorkKind k : {GpuWorkKind::kComputation, GpuWorkKind::kCommunication, GpuWorkKind::kMemory})
    kinds[std::string(gpu_work_kind_key(k))] = b.kind_pct(k);
  json j = {{"span_us", us(b.span_ps)},
            {"busy_us", us(b.times.busy_ps)},
            {"idle_us", us(b.idle_ps())},
            {"compute_us", us(b.times.union_ps[size_t(GpuWorkKind::kComputation)])},
            {"idle_pct", b.idle_pct()},
            {"compute_pct", b.compute_pct()},
            {"non_compute_pct", b.non_compute_pct()},
            {"kernel_type_pct", kinds},
            {"devices", json::array()},
            {"streams", json::array()}};
  for (const GpuDeviceTime& d : b.devices) {
    json dj = kind_times_json(d.times, b.span_ps);
    dj["device"] = d.device_ordinal;
    j["devices"].push_back(dj);
  }
  for (const GpuStreamTime& s : b.streams) {
    json sj = kind_times_json(s.times, b.span_ps);
    sj["stream"] = s.stream_id;
    sj["device"] = s.device_ordinal;
    sj["events"] = s.events;
    j["streams"].push_back(sj);
  }
  return j;
}

json idle_json(const GpuIdleTime& idle, const HostGpuTimeline& h) {
  json j = {{"kernel_wait_threshold_us", us(kKernelWaitThresholdPs)}, {"streams", json::array()},
            {"largest_gaps", json::array()}};
  for (const StreamIdleTime& s : idle.streams) {
    json sj = {{"stream", s.stream_id}, {"device", s.device_ordinal}, {"idle_us", us(s.idle_ps())}};
    for (size_t c = 0; c < kNumIdleCauses; ++c) {
      const std::string key(idle_cause_key(IdleCause(c)));
      sj[key + "_us"] = us(s.cause_ps[c]);
      sj[key + "_pct"] = s.idle_ps() != 0 ? 100.0 * double(s.cause_ps[c]) / double(s.idle_ps()) : 0.0;
      sj[key + "_gaps"] = s.gaps[c];
    }
    j["streams"].push_back(sj);
  }
  for (size_t i = 0; i < idle.largest.size(); ++i) {
    const IdleGap& g = idle.largest[i];
    j["largest_gaps"].push_back({{"stream", idle.streams[g.stream].stream_id},
                                 {"begin_ms", ms(g.begin_ps)},
                                 {"length_us", us(g.length_ps)},
                                 {"cause", idle_cause_key(g.cause)},
                                 {"next", h.gap_next_names[i]},
                                 {"launched_by", h.gap_launch_ops[i]}});
  }
  return j;
}

json overlap_json(const CommComputeOverlap& o) {
  const auto pct = o.overlap_pct();
  return {{"overlap_pct", pct ? json(*pct) : json(nullptr)},
          {"communication_us", us(o.communication_ps)},
          {"computation_us", us(o.computation_ps)},
          {"overlap_us", us(o.overlap_ps)},
          {"exposed_communication_us", us(o.exposed_communication_ps())}};
}

json launches_json(const KernelLaunchStats& s) {
  json j = {{"launches", s.launches},
            {"short_kernels", s.short_kernels},
            {"runtime_outliers", s.runtime_outliers},
            {"long_delay_kernels", s.long_delay_kernels},
            {"median_launch_delay_us", s.median_launch_delay_us},
            {"mean_launch_delay_us", s.mean_launch_delay_us},
            {"max_launch_delay_us", s.max_launch_delay_us},
            {"median_cpu_us", s.median_cpu_us},
            {"median_gpu_us", s.median_gpu_us},
            {"short_kernels_gpu_us", us(s.short_kernels_gpu_ps)},
            {"short_kernels_cpu_us", us(s.short_kernels_cpu_ps)},
            {"runtime_cutoff_us", us(kLaunchRuntimeCutoffPs)},
            {"launch_delay_cutoff_us", us(kLaunchDelayCutoffPs)},
            {"short_kernel_names", json::array()},
            {"longest_delays", json::array()}};
  for (const LaunchedKernelGroup& g : s.short_kernel_names)
    j["short_kernel_names"].push_back(
        {{"name", g.name}, {"op", g.op}, {"count", g.count}, {"gpu_us", us(g.gpu_ps)}, {"cpu_us", us(g.cpu_ps)}});
  for (const DelayedLaunch& d : s.longest_delays)
    j["longest_delays"].push_back({{"name", d.name},
                                   {"op", d.op},
                                   {"begin_ms", ms(d.begin_ps)},
                                   {"delay_us", us(d.delay_ps)},
                                   {"cpu_us", us(d.cpu_ps)},
                                   {"gpu_us", us(d.gpu_ps)}});
  return j;
}

json queue_json(const std::vector<StreamQueueLength>& queue) {
  json streams = json::array();
  for (const StreamQueueLength& q : queue) {
    json series = json::array();
    for (const auto& [t, n] : q.series) series.push_back({ms(t), n});
    streams.push_back({{"stream", q.stream_id},
                       {"device", q.device_ordinal},
                       {"max", q.max},
                       {"mean", q.mean},
                       {"mean_at_changes", q.mean_at_changes},
                       {"changes", q.changes},
                       {"series", series}});
  }
  return {{"streams", streams}};
}

}  // namespace

HostGpuTimeline compute_host_gpu_timeline(const model::Profile& p, const HostGpuActivity& host,
                                          const GpuTimelineOptions& o) {
  HostGpuTimeline h;
  h.host = host.name;
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
  for (const HostGpuActivity& host : activity.hosts) t.hosts.push_back(compute_host_gpu_timeline(profile, host, options));
  return t;
}

nlohmann::json to_json(const GpuTimeline& t) {
  json hosts = json::array();
  for (const HostGpuTimeline& h : t.hosts) {
    // The window every figure of the host covers: the scope's, in words.
    json j = {{"host", h.host}, {"scope_note", h.scope_note}, {"window", h.scope_note}};
    if (!h.warnings.empty()) j["warnings"] = h.warnings;
    if (h.breakdown) j["gpu_time_breakdown"] = breakdown_json(*h.breakdown);
    if (h.idle) j["gpu_idle_time"] = idle_json(*h.idle, h);
    if (h.overlap) j["comm_compute_overlap"] = overlap_json(*h.overlap);
    if (h.launches) j["kernel_launch_stats"] = launches_json(*h.launches);
    if (h.queue) j["gpu_queue_length"] = queue_json(*h.queue);
    hosts.push_back(std::move(j));
  }
  return {{"scope", gpu_scope_key(t.scope)}, {"hosts", hosts}};
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
