// Synthetic training runs whose stages take known times, written as XSpace files, for the
// ground-truth tests of the analysis.
#pragma once

#include <string>

#include "model/xspace_builder.h"
#include "model/xspace/importer.h"

namespace mlprof::testing {

struct TrainingShape {
  int steps = 20;
  double input_wait_ms = 30;   // the step thread waiting in Iterator::Prefetch
  double compute_ms = 70;      // "train_step" after the wait (with nested forward/backward)
  double gap_ms = 0;           // untraced time at the end of each step
  double read_ms = 8;          // the loader's FileRead (the stage that sleeps)
  double map_self_ms = 1;      // the loader's Map around it
  bool loader = true;
};

// A host with a step thread ("train" roots with step_num and _r=1) and a loader thread running
// Iterator::Prefetch::Map containing Iterator::Prefetch::Map::FileRead back to back.
inline tensorflow::profiler::XSpace training_space(const TrainingShape& shape) {
  tensorflow::profiler::XSpace space;
  space.add_hostnames("trainer");
  auto host = add_plane(&space, 1, "/host:CPU");
  auto* main = host.line(100, "main", 1'700'000'000'000'000'000);
  const int64_t step_ps = int64_t((shape.input_wait_ms + shape.compute_ms + shape.gap_ms) * kPsPerMs);
  for (int s = 0; s < shape.steps; ++s) {
    const int64_t t0 = s * step_ps;
    host.event(main, "train", t0, step_ps, {{"step_num", int64_t(s)}, {"_r", int64_t(1)}});
    const int64_t wait = int64_t(shape.input_wait_ms * kPsPerMs);
    host.event(main, "Iterator::Prefetch", t0, wait);
    const int64_t compute = int64_t(shape.compute_ms * kPsPerMs);
    host.event(main, "train_step", t0 + wait, compute);
    host.event(main, "forward", t0 + wait, compute * 4 / 10);
    host.event(main, "backward", t0 + wait + compute * 4 / 10, compute * 6 / 10);
  }
  if (shape.loader) {
    auto* loader = host.line(101, "loader", 1'700'000'000'000'000'000);
    const int64_t read = int64_t(shape.read_ms * kPsPerMs), map = read + int64_t(shape.map_self_ms * kPsPerMs);
    for (int64_t t = 0; t + map <= shape.steps * step_ps; t += map) {
      host.event(loader, "Iterator::Prefetch::Map", t, map);
      host.event(loader, "Iterator::Prefetch::Map::FileRead", t + int64_t(shape.map_self_ms * kPsPerMs) / 2, read);
    }
  }
  return space;
}

inline model::Profile import_space(const tensorflow::profiler::XSpace& space, const std::string& host = "trainer") {
  const std::string bytes = space.SerializeAsString();
  model::Profile p;
  std::string error;
  if (!model::import_xspace_bytes(bytes.data(), bytes.size(), host, &p, &error)) throw std::runtime_error(error);
  return p;
}

}  // namespace mlprof::testing
