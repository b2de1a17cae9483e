// The device side of the step-time breakdown on hand-built GPU profiles whose copies, kernels and
// host calls take known times: exact categories, and a GPU program starved by its host's input
// reported as input-bound.
#include <gtest/gtest.h>

#include "analysis/overview_page.h"
#include "analysis/step_breakdown.h"
#include "analysis/training_profile.h"

namespace mlprof::analysis {
namespace {

using namespace mlprof::testing;

double ms_of(int64_t ps) { return double(ps) / double(kPsPerMs); }
int64_t at_ms(double ms) { return int64_t(ms * double(kPsPerMs)); }

// Three 10 ms steps of a CUDA program (times in ms from the step's start):
//   host  train [0,10]: cudaMemcpyAsync H2D [0.1,0.5]  cudaLaunchKernel [0.5,0.7] [0.7,0.9]
//                       cudaMemcpyAsync D2H [0.9,1.0]  cudaStreamSynchronize [1.0,9.0]  optimizer [9,10]
//   device              MemcpyH2D [0.5,1.5]  sgemm [1.5,6.5]  h884gemm [6.5,8.5]  MemcpyD2H [8.5,9.0]
tensorflow::profiler::XSpace cuda_program() {
  tensorflow::profiler::XSpace space;
  auto host = add_plane(&space, 1, "/host:CPU");
  auto gpu = add_plane(&space, 2, "/device:GPU:0");
  auto* main = host.line(1, "main", 0);
  auto* compute = gpu.line(7, "Stream #7(Compute)", 0);
  auto* copies = gpu.line(8, "Stream #8(MemcpyH2D,MemcpyD2H)", 0);
  for (int s = 0; s < 3; ++s) {
    const double t0 = 10.0 * s;
    auto at = [&](double ms) { return at_ms(t0 + ms); };
    const uint64_t id = 100 * uint64_t(s + 1);
    host.event(main, "train", at(0), at_ms(10), {{"step_num", int64_t(s)}, {"_r", int64_t(1)}});
    host.event(main, "cudaMemcpyAsync", at(0.1), at_ms(0.4), {{"correlation_id", id + 1}});
    host.event(main, "cudaLaunchKernel", at(0.5), at_ms(0.2), {{"correlation_id", id + 2}});
    host.event(main, "cudaLaunchKernel", at(0.7), at_ms(0.2), {{"correlation_id", id + 3}});
    host.event(main, "cudaMemcpyAsync", at(0.9), at_ms(0.1), {{"correlation_id", id + 4}});
    host.event(main, "cudaStreamSynchronize", at(1.0), at_ms(8.0));
    host.event(main, "optimizer", at(9.0), at_ms(1.0));
    gpu.event(copies, "MemcpyH2D", at(0.5), at_ms(1.0), {{"correlation_id", id + 1}});
    gpu.event(compute, "volta_sgemm_128x64_nn", at(1.5), at_ms(5.0), {{"correlation_id", id + 2}});
    gpu.event(compute, "volta_h884gemm_64x64_nn", at(6.5), at_ms(2.0), {{"correlation_id", id + 3}});
    gpu.event(copies, "MemcpyD2H", at(8.5), at_ms(0.5), {{"correlation_id", id + 4}});
  }
  return space;
}

TEST(GpuStepBreakdown, EveryInstantOfTheStepIsCharged) {
  const StepAnalysis sa = analyze_steps(import_space(cuda_program()));
  ASSERT_EQ(sa.steps.size(), 3u);
  for (const StepBreakdown& s : sa.steps) {
    EXPECT_NEAR(ms_of(s.duration_ps), 10.0, 1e-9);
    // The device idles from the step's start until the input copy the host issues at 0.1.
    EXPECT_NEAR(ms_of(s.ps(Activity::kDeviceWaitHost)), 0.5, 1e-9);
    // The copy runs 0.5..1.5, but the launches (0.5..0.9) rank above it.
    EXPECT_NEAR(ms_of(s.ps(Activity::kHostToDeviceCopy)), 0.6, 1e-9);
    EXPECT_NEAR(ms_of(s.ps(Activity::kHostPrepareLaunch)), 0.4, 1e-9);
    EXPECT_NEAR(ms_of(s.ps(Activity::kDeviceCompute32)), 5.0, 1e-9);
    EXPECT_NEAR(ms_of(s.ps(Activity::kDeviceCompute16)), 2.0, 1e-9);
    EXPECT_NEAR(ms_of(s.ps(Activity::kDeviceToHostCopy)), 0.5, 1e-9);
    EXPECT_NEAR(ms_of(s.ps(Activity::kHostCompute)), 1.0, 1e-9);
    EXPECT_EQ(s.ps(Activity::kHostRuntime), 0);  // the synchronisation is under device work throughout
    EXPECT_EQ(s.other_ps, 0);

    const auto c = s.category_ps();
    EXPECT_NEAR(ms_of(c[size_t(Category::kInput)]), 1.1, 1e-9);
    EXPECT_NEAR(ms_of(c[size_t(Category::kOutput)]), 0.5, 1e-9);
    EXPECT_NEAR(ms_of(c[size_t(Category::kKernelLaunch)]), 0.4, 1e-9);
    EXPECT_NEAR(ms_of(c[size_t(Category::kDeviceCompute)]), 7.0, 1e-9);
    EXPECT_NEAR(ms_of(c[size_t(Category::kHostCompute)]), 1.0, 1e-9);
  }
  const OverviewPage page = compute_overview_page(import_space(cuda_program()));
  EXPECT_NEAR(page.input_bound.input_pct, 11.0, 1e-6);
  EXPECT_EQ(verdict_name(page.input_bound.verdict), "MODERATELY");
  EXPECT_NEAR(page.bits16_pct, 100.0 * 2 / 7, 1e-6);
}

// Steps never overlap (§5.1, torch-tb-profiler's rule): a step ends when the GPU work launched
// from inside its host span ends, and the next one starts no earlier. Times in ms:
//   step 0 host [0,10]:  launch [1,2] -> kernel [2,8];  launch [8,9] -> kernel [9,15]
//   step 1 host [10,20]: forward [10,14];  launch [14,15] -> kernel [15,19]
//   step 2 host [20,30]: launch [21,22] -> kernel [22,28]
// Windows: [0,15], [15,20], [20,30]; the 30 ms of wall time are charged once. Before, step 1
// ran [10,20] beside step 0's [0,15]: 5 ms counted twice.
TEST(GpuStepBreakdown, StepsNeverOverlap) {
  tensorflow::profiler::XSpace space;
  auto host = add_plane(&space, 1, "/host:CPU");
  auto gpu = add_plane(&space, 2, "/device:GPU:0");
  auto* main = host.line(1, "main", 0);
  auto* stream = gpu.line(7, "Stream #7(Compute)", 0);
  for (int s = 0; s < 3; ++s)
    host.event(main, "train", at_ms(10 * s), at_ms(10), {{"step_num", int64_t(s)}, {"_r", int64_t(1)}});
  auto launch = [&](double begin, uint64_t id, double kernel_begin, double kernel_end) {
    host.event(main, "cudaLaunchKernel", at_ms(begin), at_ms(1), {{"correlation_id", id}});
    gpu.event(stream, "volta_sgemm_128x64_nn", at_ms(kernel_begin), at_ms(kernel_end - kernel_begin),
              {{"correlation_id", id}});
  };
  launch(1, 1, 2, 8);
  launch(8, 2, 9, 15);
  host.event(main, "forward", at_ms(10), at_ms(4));
  launch(14, 3, 15, 19);
  launch(21, 4, 22, 28);
  const StepAnalysis sa = analyze_steps(import_space(space));
  ASSERT_EQ(sa.steps.size(), 3u);
  const double begin[] = {0, 15, 20}, duration[] = {15, 5, 10};
  const double compute[] = {12, 4, 6}, launch_ms[] = {2, 0, 1}, other[] = {1, 1, 3};
  for (size_t i = 0; i < 3; ++i) {
    SCOPED_TRACE(i);
    const StepBreakdown& s = sa.steps[i];
    EXPECT_NEAR(ms_of(s.begin_ps), begin[i], 1e-9);
    EXPECT_NEAR(ms_of(s.duration_ps), duration[i], 1e-9);
    const auto c = s.category_ps();
    EXPECT_NEAR(ms_of(c[size_t(Category::kDeviceCompute)]), compute[i], 1e-9);
    EXPECT_NEAR(ms_of(c[size_t(Category::kKernelLaunch)]), launch_ms[i], 1e-9);
    EXPECT_NEAR(ms_of(c[size_t(Category::kOther)]), other[i], 1e-9);
    // step 1's forward pass runs under step 0's last kernel, so it is charged nowhere else.
    EXPECT_EQ(c[size_t(Category::kHostCompute)], 0);
  }
}

// One 100 ms step: the host decodes its batch for 60 ms (no input-pipeline annotation), then
// copies it and launches one kernel; the device has nothing to do until the copy.
tensorflow::profiler::XSpace starved_gpu(bool copy_issued_early) {
  tensorflow::profiler::XSpace space;
  auto host = add_plane(&space, 1, "/host:CPU");
  auto gpu = add_plane(&space, 2, "/device:GPU:0");
  auto* main = host.line(1, "main", 0);
  auto* stream = gpu.line(7, "Stream #7(Compute,MemcpyH2D)", 0);
  host.event(main, "train", 0, at_ms(100), {{"step_num", int64_t(1)}, {"_r", int64_t(1)}});
  if (copy_issued_early) {
    // Queued at once behind an event on another stream: the device waits on that, not on the host.
    host.event(main, "cudaMemcpyAsync", 0, at_ms(1), {{"correlation_id", uint64_t(1)}});
    host.event(main, "decode_batch", at_ms(1), at_ms(59));
  } else {
    host.event(main, "decode_batch", 0, at_ms(60));
    host.event(main, "cudaMemcpyAsync", at_ms(60), at_ms(1), {{"correlation_id", uint64_t(1)}});
  }
  host.event(main, "cudaLaunchKernel", at_ms(61), at_ms(1), {{"correlation_id", uint64_t(2)}});
  host.event(main, "cudaStreamSynchronize", at_ms(62), at_ms(38));
  gpu.event(stream, "MemcpyH2D", at_ms(61), at_ms(9), {{"correlation_id", uint64_t(1)}});
  gpu.event(stream, "volta_sgemm_128x64_nn", at_ms(70), at_ms(30), {{"correlation_id", uint64_t(2)}});
  return space;
}

TEST(GpuStepBreakdown, ADeviceWaitingForItsHostsInputIsInputBound) {
  const model::Profile p = import_space(starved_gpu(false));
  const StepAnalysis sa = analyze_steps(p);
  ASSERT_EQ(sa.steps.size(), 1u);
  const StepBreakdown& s = sa.steps[0];
  EXPECT_NEAR(ms_of(s.ps(Activity::kDeviceWaitHost)), 61.0, 1e-9);
  EXPECT_NEAR(ms_of(s.ps(Activity::kHostPrepareLaunch)), 1.0, 1e-9);
  EXPECT_NEAR(ms_of(s.ps(Activity::kHostToDeviceCopy)), 8.0, 1e-9);
  EXPECT_NEAR(ms_of(s.ps(Activity::kDeviceCompute32)), 30.0, 1e-9);
  EXPECT_EQ(s.ps(Activity::kHostCompute), 0);

  const OverviewPage page = compute_overview_page(p);
  EXPECT_NEAR(page.input_bound.input_pct, 69.0, 1e-6);
  EXPECT_EQ(verdict_name(page.input_bound.verdict), "HIGHLY");
}

TEST(GpuStepBreakdown, ACopyQueuedBeforeTheDeviceWentIdleIsNoWaitForTheHost) {
  const StepAnalysis sa = analyze_steps(import_space(starved_gpu(true)));
  ASSERT_EQ(sa.steps.size(), 1u);
  const StepBreakdown& s = sa.steps[0];
  EXPECT_EQ(s.ps(Activity::kDeviceWaitHost), 0);
  EXPECT_NEAR(ms_of(s.ps(Activity::kHostCompute)), 59.0, 1e-9);  // decode_batch
  EXPECT_NEAR(ms_of(s.ps(Activity::kHostRuntime)), 1.0, 1e-9);   // the early cudaMemcpyAsync
}

}  // namespace
}  // namespace mlprof::analysis
