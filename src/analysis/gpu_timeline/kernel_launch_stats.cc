#include "analysis/gpu_timeline/kernel_launch_stats.h"

#include <algorithm>
#include <unordered_map>

#include "analysis/event_kinds.h"
#include "analysis/units.h"

namespace mlprof::analysis {
namespace {

// The median as pandas computes it (the mean of the two middle values of an even count).
double median(std::vector<int64_t>& v) {
  if (v.empty()) return 0;
  const size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + mid, v.end());
  const int64_t upper = v[mid];
  if (v.size() % 2) return double(upper);
  const int64_t lower = *std::max_element(v.begin(), v.begin() + mid);
  return (double(lower) + double(upper)) / 2;
}

}  // namespace

bool is_counted_launch_call(std::string_view name) {
  // MTIA's other calls (recordEvent, enqueueCommand memcpyHtoDAsync, ...) launch no kernel: a
  // copy's enqueue runs as many DMA requests, and HTA counts none of them.
  const bool api_call = is_runtime_api_name(name) || is_mtia_runtime_name(name) ||
                        (name.size() > 2 && name.starts_with("cu") && name[2] >= 'A' && name[2] <= 'Z');
  return !api_call || is_launch_name(name) || name == "cudaMemcpyAsync" || name == "cudaMemsetAsync" ||
         name == "hipMemcpyAsync" || name == "hipMemsetAsync" || name == "hipMemcpyWithStream" ||
         name == "runFunction - job_prep_and_submit_for_execution";
}

KernelLaunchStats compute_kernel_launch_stats(const model::Profile& p, const HostGpuActivity& host,
                                              size_t max_listed, bool medians) {
  KernelLaunchStats s;
  std::vector<int8_t> counted(p.names.size(), -1);
  int64_t delay_sum = 0, delay_max = 0;
  std::unordered_map<model::StringId, size_t> short_by_name;
  std::vector<uint32_t> short_slot_of_name(p.names.size(), UINT32_MAX);
  auto shorter_delay = [](const DelayedLaunch& a, const DelayedLaunch& b) { return a.delay_ps > b.delay_ps; };
  for (const GpuWork& w : host.work) {
    if (w.launch == model::kNone) continue;
    int8_t& is_launch = counted[p.events.name[w.launch]];
    if (is_launch < 0) is_launch = is_counted_launch_call(p.name(w.launch));
    if (!is_launch) continue;
    ++s.launches;
    const int64_t gpu_begin = host.gpu_begin(p, w), launch_end = host.launch_end(p, w);
    const int64_t cpu_ps = launch_end - host.launch_begin(p, w), gpu_ps = host.gpu_end(p, w) - gpu_begin;
    const int64_t delay_ps = std::max<int64_t>(0, gpu_begin - launch_end);
    delay_sum += delay_ps;
    delay_max = std::max(delay_max, delay_ps);
    if (cpu_ps > kLaunchRuntimeCutoffPs) ++s.runtime_outliers;
    if (cpu_ps <= kLaunchRuntimeCutoffPs && gpu_ps < cpu_ps) {
      ++s.short_kernels;
      s.short_kernels_gpu_ps += gpu_ps;
      s.short_kernels_cpu_ps += cpu_ps;
      // Looked up by name index (an array), the name's string (a hash) only the first time.
      uint32_t& slot = short_slot_of_name[p.events.name[w.event]];
      if (slot == UINT32_MAX) {
        auto [it, added] = short_by_name.try_emplace(p.name_id(w.event), s.short_kernel_names.size());
        if (added)
          s.short_kernel_names.push_back({std::string(p.name(w.event)), std::string(launching_op(p, w.launch))});
        slot = uint32_t(it->second);
      }
      LaunchedKernelGroup& g = s.short_kernel_names[slot];
      ++g.count;
      g.gpu_ps += gpu_ps;
      g.cpu_ps += cpu_ps;
    }
    if (delay_ps > kLaunchDelayCutoffPs) {
      ++s.long_delay_kernels;
      if (max_listed == 0) continue;
      DelayedLaunch d{std::string(), std::string(), gpu_begin, delay_ps, cpu_ps, gpu_ps};
      if (s.longest_delays.size() < max_listed) {
        d.name = p.name(w.event), d.op = launching_op(p, w.launch);
        s.longest_delays.push_back(std::move(d));
        std::push_heap(s.longest_delays.begin(), s.longest_delays.end(), shorter_delay);
      } else if (delay_ps > s.longest_delays.front().delay_ps) {
        d.name = p.name(w.event), d.op = launching_op(p, w.launch);
        std::pop_heap(s.longest_delays.begin(), s.longest_delays.end(), shorter_delay);
        s.longest_delays.back() = std::move(d);
        std::push_heap(s.longest_delays.begin(), s.longest_delays.end(), shorter_delay);
      }
    }
  }
  std::sort(s.longest_delays.begin(), s.longest_delays.end(), shorter_delay);
  std::stable_sort(s.short_kernel_names.begin(), s.short_kernel_names.end(),
                   [](const auto& a, const auto& b) { return a.count > b.count; });
  if (s.short_kernel_names.size() > max_listed) s.short_kernel_names.resize(max_listed);
  if (s.launches > 0) {
    s.mean_launch_delay_us = us(delay_sum) / double(s.launches);
    s.max_launch_delay_us = us(delay_max);
  }
  if (medians) {
    // One figure's values at a time, in a vector of the launches' exact count: three vectors
    // grown together held 24 bytes a launch, and set the analysis' peak memory at 10 M events.
    std::vector<int64_t> values;
    values.reserve(s.launches);
    auto median_of = [&](auto value_of) {
      values.clear();
      for (const GpuWork& w : host.work)
        if (w.launch != model::kNone && counted[p.events.name[w.launch]] == 1) values.push_back(value_of(w));
      return median(values) / 1e6;
    };
    s.median_launch_delay_us = median_of(
        [&](const GpuWork& w) { return std::max<int64_t>(0, host.gpu_begin(p, w) - host.launch_end(p, w)); });
    s.median_cpu_us = median_of([&](const GpuWork& w) { return host.launch_end(p, w) - host.launch_begin(p, w); });
    s.median_gpu_us = median_of([&](const GpuWork& w) { return host.gpu_end(p, w) - host.gpu_begin(p, w); });
  }
  return s;
}

nlohmann::json to_json(const KernelLaunchStats& s) {
  nlohmann::json j = {{"launches", s.launches},
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
            {"short_kernel_names", nlohmann::json::array()},
            {"longest_delays", nlohmann::json::array()}};
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

}  // namespace mlprof::analysis
