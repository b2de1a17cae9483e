// The logdir the HTTP API target queries: small runs made here with the test XSpace builder
// and a PyTorch trace, so that every tool has something to compute.
//   plugins/profile/steps/trainer.xplane.pb        3 steps with ops, an input wait and kernels
//   plugins/profile/two_hosts/{a,b}.xplane.pb      the same on two hosts
//   plugins/profile/torch/rank1.pt.trace.json      seed_traces.h's current trace
#pragma once

#include <string>

#include "fuzz/seed_traces.h"
#include "model/xspace_builder.h"

namespace mlprof::fuzz {

inline tensorflow::profiler::XSpace fixture_xspace(const std::string& hostname) {
  using mlprof::testing::kPsPerMs;
  using mlprof::testing::kPsPerUs;
  constexpr int64_t kStartNs = 1'700'000'000'000'000'000;
  tensorflow::profiler::XSpace space;
  space.add_hostnames(hostname);
  auto cpu = mlprof::testing::add_plane(&space, 1, "/host:CPU");
  auto* train = cpu.line(1, "train", kStartNs);
  auto* loader = cpu.line(2, "input_loader", kStartNs);
  auto gpu = mlprof::testing::add_plane(&space, 2, "/device:GPU:0");
  gpu.plane_stat("clock_rate", int64_t{1'410'000});
  gpu.plane_stat("core_count", int64_t{108});
  auto* stream = gpu.line(7, "Stream #7(Kernel)", kStartNs);
  for (int64_t step = 0; step < 3; ++step) {
    const int64_t t = step * 10 * kPsPerMs;
    cpu.event(train, "ProfilerStep#" + std::to_string(step), t, 9 * kPsPerMs, {{"step_num", step}, {"_r", int64_t{1}}});
    cpu.event(train, "Iterator::Prefetch", t, 2 * kPsPerMs);
    cpu.event(train, "aten::addmm", t + 3 * kPsPerMs, 2 * kPsPerMs, {{"tf_op", std::string("aten::addmm")}});
    cpu.event(train, "cudaLaunchKernel", t + 3 * kPsPerMs + 100 * kPsPerUs, 10 * kPsPerUs,
              {{"correlation_id", int64_t{100 + step}}});
    cpu.event(train, "aten::mm", t + 6 * kPsPerMs, 2 * kPsPerMs);
    cpu.event(loader, "Iterator::Prefetch::Map::FileRead", t, 1 * kPsPerMs);
    gpu.event(stream, "gemm_kernel", t + 4 * kPsPerMs, 1 * kPsPerMs,
              {{"correlation_id", int64_t{100 + step}}, {"tf_op", std::string("aten::addmm")},
               {"kernel_details", std::string("regs:32 static_shared:0 dynamic_shared:0 grid:24,1,1 block:128,1,1")}});
  }
  return space;
}

// Writes the logdir under `dir` and returns its path.
inline std::string write_fixture_logdir(const std::string& dir) {
  const std::string runs = dir + "/plugins/profile";
  mlprof::testing::write_xspace(runs + "/steps/trainer.xplane.pb", fixture_xspace("trainer"));
  mlprof::testing::write_xspace(runs + "/two_hosts/a.xplane.pb", fixture_xspace("a"));
  mlprof::testing::write_xspace(runs + "/two_hosts/b.xplane.pb", fixture_xspace("b"));
  mlprof::testing::write_file(runs + "/torch/rank1.pt.trace.json", kCurrentKinetoTrace);
  return dir;
}

}  // namespace mlprof::fuzz
