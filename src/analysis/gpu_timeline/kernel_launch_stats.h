// Kernel launch statistics (docs/ARCHITECTURE.md §5.9), as Holistic Trace Analysis'
// CudaKernelAnalysis.cuda_kernel_launch_stats (HTA 0.6.1) defines them: each GPU item joined
// with the runtime call that launched it; the call's CPU time against the item's GPU time;
// the launch delay = the item's start − the end of its call (0 when negative). Flags, with
// HTA's default cut-offs:
//   - short ("launch-bound"): the call took ≤ 50 µs and the GPU work less than the call;
//   - runtime outlier: the call took > 50 µs;
//   - long delay: the delay is > 100 µs.
// Launch calls: cudaLaunchKernel(ExC), cudaMemcpyAsync, cudaMemsetAsync and MTIA's runFunction
// as in HTA (MTIA's other runtime calls are no launches, as in HTA); mlprof also counts the driver's cuLaunchKernel(Ex), HIP's launches and
// cudaGraphLaunch, which HTA does not recognise, and the host events TensorFlow's profiler
// names after the kernel they launch (any correlated host event that is not a CUDA/HIP call).
// Synchronous calls (cudaMemcpy) are no launches, as in HTA.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/gpu_timeline/gpu_activity.h"

namespace mlprof::analysis {

inline constexpr int64_t kLaunchRuntimeCutoffPs = 50'000'000;   // 50 µs
inline constexpr int64_t kLaunchDelayCutoffPs = 100'000'000;    // 100 µs

bool is_counted_launch_call(std::string_view name);

struct LaunchedKernelGroup {  // launch-bound kernels of one name
  std::string name;
  std::string op;             // the op that launched the first of them
  size_t count = 0;
  int64_t gpu_ps = 0, cpu_ps = 0;
};

struct DelayedLaunch {
  std::string name, op;
  int64_t begin_ps = 0;
  int64_t delay_ps = 0, cpu_ps = 0, gpu_ps = 0;
};

struct KernelLaunchStats {
  size_t launches = 0;
  size_t short_kernels = 0;
  size_t runtime_outliers = 0;
  size_t long_delay_kernels = 0;
  double median_launch_delay_us = 0, mean_launch_delay_us = 0, max_launch_delay_us = 0;
  double median_cpu_us = 0, median_gpu_us = 0;
  int64_t short_kernels_gpu_ps = 0, short_kernels_cpu_ps = 0;
  std::vector<LaunchedKernelGroup> short_kernel_names;  // most frequent first
  std::vector<DelayedLaunch> longest_delays;            // longest first
};

// `medians`: also the medians (which keep every launch's times meanwhile).
KernelLaunchStats compute_kernel_launch_stats(const model::Profile& profile, const HostGpuActivity& host,
                                              size_t max_listed = 10, bool medians = true);

// The kernel_launch_stats part of the GPU timeline's JSON (gpu_timeline.h).
nlohmann::json to_json(const KernelLaunchStats& stats);

}  // namespace mlprof::analysis
