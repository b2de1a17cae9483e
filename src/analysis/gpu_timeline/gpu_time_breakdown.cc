#include "analysis/gpu_timeline/gpu_time_breakdown.h"

#include "analysis/gpu_timeline/gpu_work_order.h"
#include "analysis/units.h"

namespace mlprof::analysis {
namespace {

double pct(int64_t part, int64_t whole) { return whole > 0 ? 100.0 * double(part) / double(whole) : 0.0; }

// Kind and busy unions of the work of streams [first, last) (a stream's or a device's:
// streams come by device).
GpuKindTimes kind_times(const HostGpuActivity& host, uint32_t first, uint32_t last, int64_t* ccm_busy = nullptr) {
  std::array<SortedUnion, kNumGpuWorkKinds> by_kind;
  SortedUnion all, ccm;
  visit_by_start(host, first, last, [&](const GpuWork& w) {
    const int64_t begin = host.begin_ps(w), end = host.end_ps(w);
    by_kind[size_t(w.kind)].add(begin, end);
    all.add(begin, end);
    if (w.kind != GpuWorkKind::kOther) ccm.add(begin, end);
  });
  GpuKindTimes t;
  for (size_t k = 0; k < kNumGpuWorkKinds; ++k) t.union_ps[k] = by_kind[k].length();
  t.busy_ps = all.length();
  if (ccm_busy) *ccm_busy = ccm.length();
  return t;
}

}  // namespace

double GpuTimeBreakdown::idle_pct() const { return pct(idle_ps(), span_ps); }
double GpuTimeBreakdown::compute_pct() const {
  return pct(times.union_ps[size_t(GpuWorkKind::kComputation)], span_ps);
}
double GpuTimeBreakdown::non_compute_pct() const {
  return span_ps > 0 ? 100.0 - idle_pct() - compute_pct() : 0.0;
}
double GpuTimeBreakdown::kind_pct(GpuWorkKind kind) const { return pct(times.union_ps[size_t(kind)], ccm_busy_ps); }

GpuTimeBreakdown compute_gpu_time_breakdown(const HostGpuActivity& host) {
  GpuTimeBreakdown b;
  for (const auto& [begin, end] : host.windows) b.span_ps += end - begin;
  b.times = kind_times(host, 0, uint32_t(host.streams.size()), &b.ccm_busy_ps);
  for (uint32_t s = 0; s < host.streams.size(); ++s) {
    GpuStreamTime st;
    st.stream_id = host.streams[s].id;
    st.device_ordinal = host.streams[s].device_ordinal;
    st.events = host.stream_first[s + 1] - host.stream_first[s];
    st.times = kind_times(host, s, s + 1);
    b.streams.push_back(st);
    if (b.devices.empty() || b.devices.back().device_ordinal != st.device_ordinal) {
      uint32_t last = s + 1;
      while (last < host.streams.size() && host.streams[last].device_ordinal == st.device_ordinal) ++last;
      b.devices.push_back({st.device_ordinal, kind_times(host, s, last)});
    }
  }
  return b;
}

namespace {

nlohmann::json kind_times_json(const GpuKindTimes& t, int64_t span_ps) {
  nlohmann::json j = {{"busy_us", us(t.busy_ps)}};
  for (size_t k = 0; k < kNumGpuWorkKinds; ++k)
    j[std::string(gpu_work_kind_key(GpuWorkKind(k))) + "_us"] = us(t.union_ps[k]);
  if (span_ps > 0) j["idle_pct"] = 100.0 * double(span_ps - t.busy_ps) / double(span_ps);
  return j;
}


}  // namespace

nlohmann::json to_json(const GpuTimeBreakdown& b) {
  nlohmann::json kinds = nlohmann::json::object();
  for (GpuWorkKind k : {GpuWorkKind::kComputation, GpuWorkKind::kCommunication, GpuWorkKind::kMemory})
    kinds[std::string(gpu_work_kind_key(k))] = b.kind_pct(k);
  nlohmann::json j = {{"span_us", us(b.span_ps)},
            {"busy_us", us(b.times.busy_ps)},
            {"idle_us", us(b.idle_ps())},
            {"compute_us", us(b.times.union_ps[size_t(GpuWorkKind::kComputation)])},
            {"idle_pct", b.idle_pct()},
            {"compute_pct", b.compute_pct()},
            {"non_compute_pct", b.non_compute_pct()},
            {"kernel_type_pct", kinds},
            {"devices", nlohmann::json::array()},
            {"streams", nlohmann::json::array()}};
  for (const GpuDeviceTime& d : b.devices) {
    nlohmann::json dj = kind_times_json(d.times, b.span_ps);
    dj["device"] = d.device_ordinal;
    j["devices"].push_back(dj);
  }
  for (const GpuStreamTime& s : b.streams) {
    nlohmann::json sj = kind_times_json(s.times, b.span_ps);
    sj["stream"] = s.stream_id;
    sj["device"] = s.device_ordinal;
    sj["events"] = s.events;
    j["streams"].push_back(sj);
  }
  return j;
}

}  // namespace mlprof::analysis
