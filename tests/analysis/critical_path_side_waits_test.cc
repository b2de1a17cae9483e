// Host calls that wait for work the trace shows elsewhere, on hand-built programs whose times are
// known, with the path worked out by hand (times in ms from each 10 ms step's start):
//
// backward() on a device's autograd engine thread: the thread that calls it waits.
//   main    train [0,10]: forward [0,3]  "## backward ##" [3,9]  optimizer [9,10]
//   engine  autograd::engine::evaluate_function: MmBackward0 [3.2,8.8]
// The path: forward 3 (host), 0.2 before the engine starts (nothing traced), the engine's 5.6
// (host), 0.2 for the main thread to go on (host, the annotation's), the optimizer 1. Halving
// the engine's work: 3 + 0.2 + 2.8 + 0.2 + 1 = 7.2 ms. Removing the annotation's own time saves
// only its 0.2 ms after the wait: the rest of it was waiting.
//
// A launch that returns after its work ran (MTIA's runFunction):
//   host    train [0,10]: runFunction [1,8]  optimizer [8,10]
//   device  fc-dtype_Float [1.5,7.5] (launched by the call)
// The path: 1 (host), 0.5 launch, 6 device, 0.5 the runtime's return, 2 optimizer. Halving
// device compute: 7 ms. The same shape with cudaLaunchKernel is no wait: CUDA's launches return
// once the work is queued, so the kernel is off the path and halving it changes nothing.
#include <gtest/gtest.h>

#include <string>

#include "analysis/critical_path/critical_path.h"
#include "analysis/step_breakdown.h"
#include "analysis/training_profile.h"

namespace mlprof::analysis {
namespace {

using namespace mlprof::testing;

int64_t at_ms(double ms) { return int64_t(ms * 1e9); }
constexpr int kSteps = 5;
const char* const kEngineWork = "autograd::engine::evaluate_function: MmBackward0";

model::Profile backward_on_engine_thread() {
  tensorflow::profiler::XSpace space;
  auto host = add_plane(&space, 1, "/host:CPU");
  auto* main = host.line(1, "main", 0);
  auto* engine = host.line(2, "pt autograd 0", 0);
  for (int s = 0; s < kSteps; ++s) {
    auto at = [&](double ms) { return at_ms(10.0 * s + ms); };
    host.event(main, "train", at(0), at_ms(10), {{"step_num", int64_t(s)}, {"_r", int64_t(1)}});
    host.event(main, "forward", at(0), at_ms(3));
    host.event(main, "## backward ##", at(3), at_ms(6));
    host.event(main, "optimizer", at(9), at_ms(1));
    host.event(engine, kEngineWork, at(3.2), at_ms(5.6));
  }
  return import_space(space);
}

model::Profile launch_around_its_work(const std::string& launch) {
  tensorflow::profiler::XSpace space;
  auto host = add_plane(&space, 1, "/host:CPU");
  auto gpu = add_plane(&space, 2, "/device:GPU:0");
  auto* main = host.line(1, "main", 0);
  auto* stream = gpu.line(7, "Stream #7(Compute)", 0);
  for (int s = 0; s < kSteps; ++s) {
    auto at = [&](double ms) { return at_ms(10.0 * s + ms); };
    const uint64_t id = uint64_t(s + 1);
    host.event(main, "train", at(0), at_ms(10), {{"step_num", int64_t(s)}, {"_r", int64_t(1)}});
    host.event(main, launch, at(1), at_ms(7), {{"correlation_id", id}});
    host.event(main, "optimizer", at(8), at_ms(2));
    gpu.event(stream, "fc-dtype_Float", at(1.5), at_ms(6), {{"correlation_id", id}});
  }
  return import_space(space);
}

double kind_ms(const CriticalPath& c, PathKind k) { return c.kind_ms[size_t(k)]; }

TEST(CriticalPathSideWaits, TheThreadThatCallsBackwardWaitsForTheEngine) {
  const model::Profile p = backward_on_engine_thread();
  const CriticalPath c = compute_critical_path(p, analyze_steps(p), {{kEngineWork, 0.5}, {"## backward ##", 0}});
  ASSERT_EQ(c.steps.size(), size_t(kSteps));
  EXPECT_NEAR(c.path_ms, 10, 1e-9);
  EXPECT_NEAR(kind_ms(c, PathKind::kHost), 9.8, 1e-9);
  EXPECT_NEAR(kind_ms(c, PathKind::kIdle), 0.2, 1e-9);
  ASSERT_FALSE(c.top_ops.empty());
  EXPECT_EQ(c.top_ops[0].name, kEngineWork);
  ASSERT_EQ(c.what_if.size(), 2u);
  EXPECT_NEAR(c.what_if[0].step_ms, 7.2, 1e-9);  // the engine's work halved
  EXPECT_NEAR(c.what_if[1].step_ms, 9.8, 1e-9);  // the annotation's own time removed
}

TEST(CriticalPathSideWaits, AnMtiaLaunchThatHoldsItsWorkWaitsForIt) {
  const model::Profile p = launch_around_its_work("runFunction - job_prep_and_submit_for_execution");
  const CriticalPath c = compute_critical_path(p, analyze_steps(p), {{"device_compute", 0.5}});
  ASSERT_EQ(c.steps.size(), size_t(kSteps));
  EXPECT_NEAR(c.path_ms, 10, 1e-9);
  EXPECT_NEAR(kind_ms(c, PathKind::kDeviceCompute), 6, 1e-9);
  EXPECT_NEAR(kind_ms(c, PathKind::kKernelLaunch), 1, 1e-9);
  EXPECT_NEAR(kind_ms(c, PathKind::kHost), 3, 1e-9);
  ASSERT_EQ(c.what_if.size(), 1u);
  EXPECT_NEAR(c.what_if[0].step_ms, 7, 1e-9);
  EXPECT_EQ(c.bottleneck(), PathKind::kDeviceCompute);
}

TEST(CriticalPathSideWaits, ACudaLaunchReturnsBeforeItsWork) {
  const model::Profile p = launch_around_its_work("cudaLaunchKernel");
  const CriticalPath c = compute_critical_path(p, analyze_steps(p), {{"device_compute", 0.5}});
  ASSERT_EQ(c.steps.size(), size_t(kSteps));
  EXPECT_NEAR(kind_ms(c, PathKind::kDeviceCompute), 0, 1e-9);
  ASSERT_EQ(c.what_if.size(), 1u);
  EXPECT_NEAR(c.what_if[0].step_ms, 10, 1e-9);
}

}  // namespace
}  // namespace mlprof::analysis
