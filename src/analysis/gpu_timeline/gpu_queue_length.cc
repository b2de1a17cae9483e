#include "analysis/gpu_timeline/gpu_queue_length.h"

#include <algorithm>

#include "analysis/gpu_timeline/counter_reducer.h"
#include "analysis/gpu_timeline/kernel_launch_stats.h"
#include "analysis/units.h"

namespace mlprof::analysis {
std::vector<StreamQueueLength> compute_gpu_queue_length(const model::Profile& p, const HostGpuActivity& host,
                                                        size_t max_points) {
  std::vector<StreamQueueLength> out;
  std::vector<int8_t> counted(p.names.size(), -1);
  std::vector<int64_t> launches, starts;  // +1 at each launch, -1 at each start
  for (uint32_t s = 0; s < host.streams.size(); ++s) {
    launches.clear(), starts.clear();
    for (uint32_t i = host.stream_first[s]; i < host.stream_first[s + 1]; ++i) {
      const GpuWork& w = host.work[i];
      if (w.launch == model::kNone) continue;
      int8_t& is_launch = counted[p.events.name[w.launch]];
      if (is_launch < 0) is_launch = is_counted_launch_call(p.name(w.launch));
      if (!is_launch) continue;
      launches.push_back(host.launch_begin(p, w));
      starts.push_back(host.gpu_begin(p, w));
    }
    // Both come nearly in order (the stream's work by start): sort only what is not, then
    // walk them together, a start before a launch at the same instant.
    if (!std::is_sorted(launches.begin(), launches.end())) std::sort(launches.begin(), launches.end());
    if (!std::is_sorted(starts.begin(), starts.end())) std::sort(starts.begin(), starts.end());
    StreamQueueLength q;
    q.line = host.streams[s].line;
    q.stream_id = host.streams[s].id;
    q.device_ordinal = host.streams[s].device_ordinal;
    q.changes = launches.size() + starts.size();
    if (q.changes == 0) {
      out.push_back(std::move(q));
      continue;
    }
    const int64_t first = std::min(launches.front(), starts.front());
    const int64_t last = std::max(launches.back(), starts.back());
    CounterReducer series(first, last, max_points);
    int64_t value = 0, sum_at_changes = 0, previous = first;
    double weighted = 0;
    for (size_t li = 0, si = 0; li < launches.size() || si < starts.size();) {
      const bool start = si < starts.size() && (li == launches.size() || starts[si] <= launches[li]);
      const int64_t at = start ? starts[si++] : launches[li++];
      weighted += double(value) * double(at - previous);  // the value held since the change before
      previous = at;
      value += start ? -1 : 1;
      sum_at_changes += value;
      q.max = std::max(q.max, value);
      series.add(at, value);
    }
    q.mean_at_changes = double(sum_at_changes) / double(q.changes);
    q.mean = last > first ? weighted / double(last - first) : double(q.max);
    q.series = series.finish();
    out.push_back(std::move(q));
  }
  return out;
}

nlohmann::json to_json(const std::vector<StreamQueueLength>& queue) {
  nlohmann::json streams = nlohmann::json::array();
  for (const StreamQueueLength& q : queue) {
    nlohmann::json series = nlohmann::json::array();
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

}  // namespace mlprof::analysis
