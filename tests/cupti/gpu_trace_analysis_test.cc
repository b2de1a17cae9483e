// What the CUPTI tracer writes, read by the analysis: the synthetic step of synthetic_gpu_log.h
// with a StepTrace around it. Correlation ids carry the device work into the step, tf_op names
// the kernels' ops, and every nanosecond of the step lands in the category it should.
#include <gtest/gtest.h>

#include "analysis/kernel_stats.h"
#include "analysis/step_breakdown.h"
#include "capture/run_reader.h"
#include "cupti/synthetic_gpu_log.h"
#include "format/scratch_dir.h"
#include "format/xspace_reader.h"
#include "model/xspace/importer.h"

namespace mlprof::testing {
namespace {

int64_t next_id(const google::protobuf::Map<int64_t, tp::XEventMetadata>& m) {
  int64_t id = 0;
  for (const auto& [k, v] : m) id = std::max(id, k);
  return id + 1;
}

// The synthetic capture, with the step marker a StepTrace would have written around it.
model::Profile profile_with_step() {
  ScratchDir dir;
  capture::DeviceTrace trace;
  std::string error;
  const std::string path = dir.path() + "/gpu.xplane.pb";
  EXPECT_TRUE(write_synthetic_xspace(path, &trace, &error)) << error;
  tp::XSpace space;
  EXPECT_TRUE(format::read_xspace(path, &space, &error)) << error;
  for (auto& plane : *space.mutable_planes()) {
    if (plane.name() != "/host:CPU") continue;
    const int64_t train = next_id(plane.event_metadata());
    (*plane.mutable_event_metadata())[train].set_id(train);
    (*plane.mutable_event_metadata())[train].set_name("train");
    int64_t stat = 0;
    for (const auto& [k, v] : plane.stat_metadata()) stat = std::max(stat, k);
    (*plane.mutable_stat_metadata())[stat + 1].set_name("step_num");
    (*plane.mutable_stat_metadata())[stat + 1].set_id(stat + 1);
    (*plane.mutable_stat_metadata())[stat + 2].set_name("_r");
    (*plane.mutable_stat_metadata())[stat + 2].set_id(stat + 2);
    for (auto& line : *plane.mutable_lines()) {
      if (line.id() != kOsThread) continue;
      tp::XEvent step;
      step.set_metadata_id(train);
      step.set_offset_ps(0);
      step.set_duration_ps(500'000);
      step.add_stats()->set_metadata_id(stat + 1);
      step.mutable_stats(0)->set_int64_value(0);
      step.add_stats()->set_metadata_id(stat + 2);
      step.mutable_stats(1)->set_int64_value(1);
      line.mutable_events()->Add(std::move(step));
      std::rotate(line.mutable_events()->rbegin(), line.mutable_events()->rbegin() + 1, line.mutable_events()->rend());
    }
  }
  const std::string bytes = space.SerializeAsString();
  model::Profile p;
  EXPECT_TRUE(model::import_xspace_bytes(bytes.data(), bytes.size(), "gpu_host", &p, &error)) << error;
  return p;
}

TEST(GpuTraceAnalysis, CorrelationIdsCarryTheDeviceWorkIntoTheStep) {
  const model::Profile p = profile_with_step();
  const analysis::StepAnalysis sa = analysis::analyze_steps(p);
  ASSERT_EQ(sa.steps.size(), 1u);
  size_t device_work = 0;
  for (model::EventIndex e = 0; e < p.num_events(); ++e) {
    if (!sa.grouping.device_work_line[p.line_index(e)]) continue;
    ++device_work;
    EXPECT_EQ(sa.grouping.group_of[e], 0) << p.name(e);
  }
  EXPECT_EQ(device_work, 5u);  // 2 kernels, a memset, 2 copies
}

TEST(GpuTraceAnalysis, EveryNanosecondOfTheStepIsCharged) {
  const analysis::StepAnalysis sa = analysis::analyze_steps(profile_with_step());
  ASSERT_EQ(sa.steps.size(), 1u);
  const analysis::StepBreakdown& s = sa.steps[0];
  using analysis::Activity;
  auto ns = [&](Activity a) { return s.ps(a) / 1000; };
  EXPECT_EQ(s.duration_ps, 500'000);
  EXPECT_EQ(ns(Activity::kDeviceWaitHost), 30);     // idle until the batch copy the host issued at 10
  EXPECT_EQ(ns(Activity::kHostToDeviceCopy), 50);
  EXPECT_EQ(ns(Activity::kHostPrepareLaunch), 20);  // the two cudaLaunchKernel calls
  EXPECT_EQ(ns(Activity::kDeviceCompute32), 60);    // scale_kernel and the memset
  EXPECT_EQ(ns(Activity::kDeviceCompute16), 200);   // the fp16 GEMM
  EXPECT_EQ(ns(Activity::kDeviceToHostCopy), 30);
  EXPECT_EQ(ns(Activity::kHostRuntime), 30);        // cudaStreamSynchronize while the device idles
  EXPECT_EQ(s.other_ps / 1000, 80);
}

TEST(GpuTraceAnalysis, KernelStatsNameTheOpsThatLaunchedTheKernels) {
  const analysis::KernelStatsTable t = analysis::compute_kernel_stats(profile_with_step());
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.rows[0].kernel_name, kGemm);
  EXPECT_EQ(t.rows[0].op_name, "aten::conv2d");
  EXPECT_TRUE(t.rows[0].uses_tensor_cores);
  EXPECT_TRUE(t.rows[0].op_tensor_core_eligible);
  EXPECT_EQ(t.rows[0].config.dynamic_shared_bytes, 49152);
  EXPECT_DOUBLE_EQ(t.rows[0].config.occupancy_pct, 25.0);
  EXPECT_EQ(t.rows[1].kernel_name, "scale_kernel(float*, int, float)");
  EXPECT_EQ(t.rows[1].op_name, "aten::mm");
  EXPECT_FALSE(t.rows[1].uses_tensor_cores);
  EXPECT_EQ(t.rows[1].total_ps, 50'000);
  EXPECT_EQ(t.total_ps, 250'000);
}

}  // namespace
}  // namespace mlprof::testing
