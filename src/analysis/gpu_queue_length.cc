#include "analysis/gpu_queue_length.h"

#include <algorithm>

#include "analysis/kernel_launch_stats.h"
#include "analysis/trace_counters.h"

namespace mlprof::analysis {
std::vector<StreamQueueLength> compute_gpu_queue_length(const model::Profile& p, const HostGpuActivity& host,
                                                        size_t max_points) {
  std::vector<StreamQueueLength> out;
  std::vector<int8_t> counted(p.names.size(), -1);
  std::vector<std::pair<int64_t, int8_t>> launches, starts, changes;  // (time, +1 launch / −1 start)
  for (uint32_t s = 0; s < host.streams.size(); ++s) {
    launches.clear(), starts.clear(), changes.clear();
    for (uint32_t i = host.stream_first[s]; i < host.stream_first[s + 1]; ++i) {
      const GpuWork& w = host.work[i];
      if (w.launch == model::kNone) continue;
      int8_t& is_launch = counted[p.events.name[w.launch]];
      if (is_launch < 0) is_launch = is_counted_launch_call(p.name(w.launch));
      if (!is_launch) continue;
      launches.push_back({host.launch_begin(p, w), int8_t(1)});
      starts.push_back({host.gpu_begin(p, w), int8_t(-1)});
    }
    // Both come nearly in order (the stream's work by start): sort only what is not, then
    // merge, a start before a launch at the same instant.
    if (!std::is_sorted(launches.begin(), launches.end())) std::sort(launches.begin(), launches.end());
    if (!std::is_sorted(starts.begin(), starts.end())) std::sort(starts.begin(), starts.end());
    changes.resize(launches.size() + starts.size());
    std::merge(launches.begin(), launches.end(), starts.begin(), starts.end(), changes.begin());
    StreamQueueLength q;
    q.line = host.streams[s].line;
    q.stream_id = host.streams[s].id;
    q.device_ordinal = host.streams[s].device_ordinal;
    q.changes = changes.size();
    int64_t value = 0, sum_at_changes = 0;
    double weighted = 0;
    std::vector<std::pair<int64_t, int64_t>> series;
    for (size_t i = 0; i < changes.size(); ++i) {
      value += changes[i].second;
      sum_at_changes += value;
      q.max = std::max(q.max, value);
      if (i + 1 < changes.size()) weighted += double(value) * double(changes[i + 1].first - changes[i].first);
      if (!series.empty() && series.back().first == changes[i].first) series.back().second = value;
      else series.push_back({changes[i].first, value});
    }
    if (!changes.empty()) {
      q.mean_at_changes = double(sum_at_changes) / double(changes.size());
      const int64_t span = changes.back().first - changes.front().first;
      q.mean = span > 0 ? weighted / double(span) : double(q.max);
    }
    q.series = reduce_counter(series, max_points);
    out.push_back(std::move(q));
  }
  return out;
}

}  // namespace mlprof::analysis
