// A small GPU activity log, as the CUPTI tracer would collect it from one training step on an
// A100-like device, with known times and links, and the XSpace the exporter writes from it.
//
//   host thread 4242 (CUPTI's thread 555), tracer clock in ns from kStart:
//     10..20  cudaMemcpyAsync (#10)        -> MemcpyH2D on stream 8,  30..80
//     100..110 cudaLaunchKernel (#11)      -> (driver cuLaunchKernel #12 inside, 102..108)
//                                             scale_kernel on stream 7, 120..170, op aten::mm
//     200..210 cudaLaunchKernel (#13)      -> s16816gemm on stream 7, 210..410, op aten::conv2d,
//                                             external id 77
//     220..225 cudaGetDevice (#15)         (a query: left out)
//     230..240 cudaMemsetAsync (#16)       -> Memset on stream 7, 420..430
//     250..260 cudaMemcpyAsync (#17)       -> MemcpyD2H on stream 8, 440..470
//     300..480 cudaStreamSynchronize (#14) -> Stream Sync of stream 7
#pragma once

#include <string>

#include "capture/clock_fit.h"
#include "capture/cupti/device_trace_builder.h"
#include "capture/cupti/gpu_activity.h"
#include "capture/xspace_export.h"

namespace mlprof::testing {

namespace gpu = capture::gpu;

inline constexpr uint64_t kStart = 1'000'000;                    // session start, tracer clock (ns)
inline constexpr int64_t kStartUnixNs = 1'700'000'000'000'000'000;  // the same instant, Unix epoch
inline constexpr uint64_t kStartTicks = 5000;
inline constexpr double kTicksPerNs = 2.0;
inline constexpr uint32_t kOsThread = 4242;
inline constexpr const char* kMangledScale = "_Z12scale_kernelPfif";
inline constexpr const char* kGemm = "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn";

inline gpu::ApiActivity api(gpu::GpuActivityLog& log, const char* name, uint64_t start, uint64_t end, uint32_t corr,
                            gpu::ApiDomain domain = gpu::ApiDomain::kRuntime) {
  gpu::ApiActivity a;
  a.start_ns = kStart + start;
  a.end_ns = kStart + end;
  a.thread = 555;
  a.correlation_id = corr;
  a.name = log.names.intern(name);
  a.domain = domain;
  return a;
}

inline void fill_synthetic_log(gpu::GpuActivityLog& log) {
  gpu::DeviceProperties d;
  d.id = 0;
  d.name = log.names.intern("NVIDIA A100-SXM4-40GB");
  d.compute_capability_major = 8;
  d.multiprocessors = 108;
  d.core_clock_khz = 1410000;
  d.memory_bandwidth_bytes_per_s = 1555000000000;
  d.memory_bytes = 42505273344;
  d.max_warps_per_multiprocessor = 64;
  d.max_blocks_per_multiprocessor = 32;
  d.max_shared_memory_per_multiprocessor = 167936;
  d.max_registers_per_multiprocessor = 65536;
  log.devices.push_back(d);

  gpu::KernelActivity scale;
  scale.start_ns = kStart + 120, scale.end_ns = kStart + 170;
  scale.context = 1, scale.stream = 7, scale.correlation_id = 12;  // the driver call's id
  scale.name = log.names.intern(kMangledScale);
  scale.grid[0] = 80, scale.grid[1] = 1, scale.grid[2] = 1;
  scale.block[0] = 256, scale.block[1] = 1, scale.block[2] = 1;
  scale.registers_per_thread = 32;
  log.kernels.push_back(scale);

  gpu::KernelActivity gemm;
  gemm.start_ns = kStart + 210, gemm.end_ns = kStart + 410;
  gemm.context = 1, gemm.stream = 7, gemm.correlation_id = 13;
  gemm.name = log.names.intern(kGemm);
  gemm.grid[0] = 64, gemm.grid[1] = 2, gemm.grid[2] = 1;
  gemm.block[0] = 256, gemm.block[1] = 1, gemm.block[2] = 1;
  gemm.registers_per_thread = 128;
  gemm.static_shared_bytes = 1024;
  gemm.dynamic_shared_bytes = 49152;
  log.kernels.push_back(gemm);

  gpu::MemcpyActivity h2d;
  h2d.start_ns = kStart + 30, h2d.end_ns = kStart + 80;
  h2d.context = 1, h2d.stream = 8, h2d.correlation_id = 10, h2d.bytes = 4096;
  h2d.kind = gpu::CopyKind::kHostToDevice;
  h2d.source = gpu::MemoryKind::kPinned, h2d.destination = gpu::MemoryKind::kDevice;
  h2d.async = true;
  log.memcpys.push_back(h2d);
  gpu::MemcpyActivity d2h = h2d;
  d2h.start_ns = kStart + 440, d2h.end_ns = kStart + 470, d2h.correlation_id = 17, d2h.bytes = 16;
  d2h.kind = gpu::CopyKind::kDeviceToHost;
  d2h.source = gpu::MemoryKind::kDevice, d2h.destination = gpu::MemoryKind::kPageable;
  log.memcpys.push_back(d2h);

  gpu::MemsetActivity memset;
  memset.start_ns = kStart + 420, memset.end_ns = kStart + 430;
  memset.context = 1, memset.stream = 7, memset.correlation_id = 16, memset.bytes = 512;
  memset.memory = gpu::MemoryKind::kDevice;
  log.memsets.push_back(memset);

  gpu::SyncActivity sync;
  sync.start_ns = kStart + 300, sync.end_ns = kStart + 480;
  sync.context = 1, sync.stream = 7, sync.correlation_id = 14;
  sync.kind = gpu::SyncKind::kStreamSynchronize;
  log.syncs.push_back(sync);

  log.api_calls.push_back(api(log, "cudaMemcpyAsync", 10, 20, 10));
  log.api_calls.push_back(api(log, "cudaLaunchKernel", 100, 110, 11));
  log.api_calls.push_back(api(log, "cuLaunchKernel", 102, 108, 12, gpu::ApiDomain::kDriver));
  log.api_calls.push_back(api(log, "cudaLaunchKernel", 200, 210, 13));
  log.api_calls.push_back(api(log, "cudaGetDevice", 220, 225, 15));
  log.api_calls.push_back(api(log, "cudaMemsetAsync", 230, 240, 16));
  log.api_calls.push_back(api(log, "cudaMemcpyAsync", 250, 260, 17));
  log.api_calls.push_back(api(log, "cudaStreamSynchronize", 300, 480, 14));

  log.threads_of_calls.push_back({10, kOsThread});
  log.launch_ops.push_back({11, "aten::mm"});
  log.launch_ops.push_back({13, "aten::conv2d"});
  log.external_correlations.push_back({13, 3, 77});
}

inline gpu::GpuClock synthetic_clock() {
  gpu::GpuClock clock;
  clock.session_start_ns = int64_t(kStart);
  clock.session_start_unix_ns = kStartUnixNs;
  clock.session_start_ticks = kStartTicks;
  clock.ticks_per_ns = kTicksPerNs;
  return clock;
}

// The session's clock pairs that match synthetic_clock(), 1 ms apart.
inline void synthetic_clock_pairs(capture::ClockPair* start, capture::ClockPair* stop) {
  *start = {kStartTicks, int64_t(kStart), kStartUnixNs};
  *stop = {kStartTicks + uint64_t(1'000'000 * kTicksPerNs), int64_t(kStart) + 1'000'000, kStartUnixNs + 1'000'000};
}

// Writes the log as the session would: the host plane with the CUDA calls, the GPU planes.
inline bool write_synthetic_xspace(const std::string& path, capture::DeviceTrace* trace, std::string* error) {
  gpu::GpuActivityLog log;
  fill_synthetic_log(log);
  gpu::build_device_trace(log, synthetic_clock(), trace);
  capture::CaptureToExport capture;
  synthetic_clock_pairs(&capture.start, &capture.stop);
  capture.host_name = "gpu_host";
  capture.device = trace;
  capture.warnings = trace->warnings;
  capture::ExportCounts counts;
  return capture::export_xspace(capture, path, &counts, error);
}

}  // namespace mlprof::testing
