// A small profile for the trace viewer and export tests: a step on the main thread with a
// kernel launch and a producer, a worker thread with the consumer and two partly overlapping
// events, and a GPU stream with the launched kernel.
#pragma once

#include "model/xspace_builder.h"
#include "model/xspace/importer.h"

namespace mlprof::testing {

inline model::Profile trace_test_profile() {
  tensorflow::profiler::XSpace space;
  space.add_hostnames("trainer");
  constexpr int64_t kOriginNs = 1'000'000;
  auto host = add_plane(&space, 1, "/host:CPU");
  auto* main = host.line(100, "main", kOriginNs);
  host.event(main, "train", 0, 100 * kPsPerUs, {{"step_num", int64_t(7)}, {"_r", int64_t(1)}});
  host.event(main, "forward", 10 * kPsPerUs, 30 * kPsPerUs);
  host.event(main, "cudaLaunchKernel", 20 * kPsPerUs, 5 * kPsPerUs, {{"correlation_id", uint64_t(42)}});
  host.event(main, "enqueue", 50 * kPsPerUs, 10 * kPsPerUs, {{"_pt", uint64_t(1)}, {"_p", uint64_t(99)}});
  auto* worker = host.line(101, "worker", kOriginNs);
  host.event(worker, "dequeue", 70 * kPsPerUs, 10 * kPsPerUs, {{"_ct", uint64_t(1)}, {"_c", uint64_t(99)}});
  host.event(worker, "overlapping_a", 100 * kPsPerUs, 30 * kPsPerUs);
  host.event(worker, "overlapping_b", 120 * kPsPerUs, 30 * kPsPerUs);
  auto gpu = add_plane(&space, 2, "/device:GPU:0");
  auto* stream = gpu.line(7, "Stream #7(Compute)", kOriginNs);
  gpu.event(stream, "kernel_a", 30 * kPsPerUs, 15 * kPsPerUs, {{"correlation_id", uint64_t(42)}});

  const std::string bytes = space.SerializeAsString();
  model::Profile p;
  std::string error;
  if (!model::import_xspace_bytes(bytes.data(), bytes.size(), "trainer", &p, &error)) throw std::runtime_error(error);
  return p;
}

// The first event with this name.
inline model::EventIndex find_event(const model::Profile& p, std::string_view name) {
  for (model::EventIndex e = 0; e < p.num_events(); ++e)
    if (p.name(e) == name) return e;
  return model::kNone;
}

}  // namespace mlprof::testing
