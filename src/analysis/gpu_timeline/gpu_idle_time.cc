#include "analysis/gpu_timeline/gpu_idle_time.h"

#include <algorithm>

#include "analysis/units.h"

namespace mlprof::analysis {

std::string_view idle_cause_key(IdleCause cause) {
  static constexpr std::array<std::string_view, kNumIdleCauses> kKeys = {"host_wait", "kernel_wait", "other"};
  return kKeys[size_t(cause)];
}

GpuIdleTime compute_gpu_idle_time(const model::Profile& profile, const HostGpuActivity& host, size_t max_gaps,
                                  int64_t kernel_wait_threshold_ps) {
  GpuIdleTime out;
  auto longer = [](const IdleGap& a, const IdleGap& b) { return a.length_ps > b.length_ps; };
  for (uint32_t s = 0; s < host.streams.size(); ++s) {
    StreamIdleTime st;
    st.stream_id = host.streams[s].id;
    st.device_ordinal = host.streams[s].device_ordinal;
    // A gap runs from the end of the work before it: HTA's rule (kept with its rounding) takes
    // the previous item's end, which makes gaps negative where items on a stream overlap;
    // mlprof's own takes the latest end so far, and overlapping items leave no gap.
    int64_t reach = INT64_MIN;
    for (uint32_t i = host.stream_first[s] + 1; i < host.stream_first[s + 1]; ++i) {
      const GpuWork& prev = host.work[i - 1];
      const GpuWork& w = host.work[i];
      if (w.window != prev.window) {  // no gap across step windows
        reach = INT64_MIN;
        continue;
      }
      reach = host.round_like_hta ? host.end_ps(prev) : std::max(reach, host.end_ps(prev));
      if (!host.round_like_hta && host.begin_ps(w) < reach) continue;  // overlapping: no gap
      IdleGap gap;
      gap.begin_ps = reach;
      gap.length_ps = host.begin_ps(w) - gap.begin_ps;
      gap.stream = s;
      gap.next = w.event;
      gap.launch = w.launch;
      if (w.launch != model::kNone && host.launch_begin(profile, w) > gap.begin_ps) gap.cause = IdleCause::kHostWait;
      else if (gap.length_ps < kernel_wait_threshold_ps) gap.cause = IdleCause::kKernelWait;
      else gap.cause = IdleCause::kOther;
      st.cause_ps[size_t(gap.cause)] += gap.length_ps;
      ++st.gaps[size_t(gap.cause)];
      if (max_gaps == 0 || gap.length_ps <= 0) continue;
      if (out.largest.size() < max_gaps) {
        out.largest.push_back(gap);
        std::push_heap(out.largest.begin(), out.largest.end(), longer);
      } else if (gap.length_ps > out.largest.front().length_ps) {
        std::pop_heap(out.largest.begin(), out.largest.end(), longer);
        out.largest.back() = gap;
        std::push_heap(out.largest.begin(), out.largest.end(), longer);
      }
    }
    out.streams.push_back(st);
  }
  std::sort(out.largest.begin(), out.largest.end(), longer);
  return out;
}

nlohmann::json to_json(const GpuIdleTime& idle, const std::vector<std::string>& next_names,
                       const std::vector<std::string>& launch_ops) {
  nlohmann::json j = {{"kernel_wait_threshold_us", us(kKernelWaitThresholdPs)}, {"streams", nlohmann::json::array()},
            {"largest_gaps", nlohmann::json::array()}};
  for (const StreamIdleTime& s : idle.streams) {
    nlohmann::json sj = {{"stream", s.stream_id}, {"device", s.device_ordinal}, {"idle_us", us(s.idle_ps())}};
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
                                 {"next", next_names[i]},
                                 {"launched_by", launch_ops[i]}});
  }
  return j;
}

}  // namespace mlprof::analysis
