// Every tool on TensorFlow's own file (a 2.4-era multi-worker BERT run on 8 GPUs). The
// assertions pin what the tools find today so that a regression shows.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "analysis/framework_op_stats.h"
#include "analysis/input_pipeline_analyzer.h"
#include "analysis/kernel_stats.h"
#include "analysis/overview_page.h"
#include "analysis/tf_data_bottleneck_analysis.h"
#include "model/xspace/importer.h"

namespace mlprof::analysis {
namespace {

const std::string kFile = std::string(MLPROF_TESTDATA) + "/tensorflow/gpu_multi_worker.xplane.pb";

class TensorFlowFile : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(kFile))
      GTEST_SKIP() << "TensorFlow test data not found at " << kFile << " (needs ../shared/testdata)";
    std::string error;
    ASSERT_TRUE(model::import_xspace_file(kFile, "worker", &profile_, &error)) << error;
  }
  model::Profile profile_;
};

TEST_F(TensorFlowFile, StepsComeFromFunctionRunAndItsLinks) {
  const StepAnalysis sa = analyze_steps(profile_);
  // TensorFlow's roots: three top-level FunctionRun on the Python thread; the one that ran no
  // kernel is not a step. TensorFlow's own "Steps" lines hold the same two steps.
  EXPECT_EQ(sa.grouping.root_kind, "FunctionRun");
  EXPECT_EQ(sa.grouping.steps.size(), 3u);
  ASSERT_EQ(sa.steps.size(), 2u);
  // TensorFlow's own "Steps" lines (XProf's device-side steps) say the same: 19.865 and 21.310
  // ms. TensorFlow dispatches the ops after FunctionRun's host span closes, so no launch lies
  // inside it and the step is its device work's span (§5.1).
  EXPECT_NEAR(double(sa.steps[0].duration_ps) / 1e9, 19.865, 0.001);
  EXPECT_NEAR(double(sa.steps[1].duration_ps) / 1e9, 21.310, 0.001);
  for (const StepBreakdown& s : sa.steps) EXPECT_EQ(sa.grouping.steps[s.group].launched_end_ps, INT64_MIN);
  // Producer/consumer links carried the executor threads into the step, correlation ids the kernels.
  size_t grouped_device = 0;
  for (model::EventIndex e = 0; e < profile_.num_events(); ++e)
    grouped_device += sa.grouping.device_work_line[profile_.line_index(e)] && sa.grouping.group_of[e] >= 0;
  EXPECT_GT(grouped_device, 1000u);
  for (const StepBreakdown& s : sa.steps) {
    EXPECT_GT(s.ps(Activity::kDeviceCompute16), 10 * int64_t(1e9));  // > 10 ms of half-precision kernels
    EXPECT_GT(s.ps(Activity::kHostPrepareLaunch), 0);
  }
}

TEST_F(TensorFlowFile, OverviewPage) {
  const OverviewPage page = compute_overview_page(profile_);
  EXPECT_EQ(verdict_name(page.input_bound.verdict), "NOT");
  EXPECT_LT(page.input_bound.input_pct, 5.0);
  EXPECT_GT(page.breakdown_pct[size_t(Category::kDeviceCompute)], 60.0);
  EXPECT_GT(page.bits16_pct, 99.9);  // Eigen::half kernels, but for one small float one
  EXPECT_EQ(page.environment.device_type, "GPU");
  EXPECT_EQ(page.environment.device_count, 8u);
  // Named as the host picker names it, the machine the profile recorded after it.
  EXPECT_EQ(page.environment.hosts.front(), "worker (34.83.195.179:6003)");
  ASSERT_EQ(page.top_ops.size(), 10u);
  EXPECT_TRUE(page.top_ops_on_device);
  EXPECT_EQ(page.top_ops.front().type, "Cast");
  EXPECT_EQ(page.top_ops.front().name, "replica_4/bert_span_labeler/bert_encoder_1/word_embeddings/GatherV2/Cast:Cast");
  const nlohmann::json j = to_json(page);
  EXPECT_EQ(j["steps"].size(), 2u);
  EXPECT_TRUE(j["summary"]["breakdown_pct"].contains("device_compute"));
}

TEST_F(TensorFlowFile, FrameworkOpStatsCountTheTensorFlowOpsLine) {
  const FrameworkOpStats s = compute_framework_op_stats(profile_);
  size_t device_rows = 0, host_rows = 0;
  uint64_t device_occurrences = 0;
  for (const auto& r : s.rows) {
    (r.on_device ? device_rows : host_rows) += 1;
    if (r.on_device) device_occurrences += r.occurrences;
    EXPECT_EQ(r.name.find("ExecutorState"), std::string::npos);
  }
  EXPECT_EQ(device_rows, 1331u);
  // The "TensorFlow Ops" lines of GPU 0 and 5 (1330 ops), and the stream events of the GPUs
  // that have no such line (19 copies).
  uint64_t ops_line_events = 0;
  for (const auto& line : profile_.lines) ops_line_events += line.kind == model::LineKind::kFrameworkOps ? line.num_events : 0;
  EXPECT_EQ(ops_line_events, 1330u);
  EXPECT_EQ(device_occurrences, 1349u);
  EXPECT_GT(host_rows, 50u);
  EXPECT_EQ(s.device_by_type.front().name, "Cast");
}

// Ops timed by the "TensorFlow Ops" line count the kernels charged to them, as kernel_stats
// charges each kernel to an op (they used to read 0 kernels, 1330 rows of them).
TEST_F(TensorFlowFile, FrameworkOpStatsCountTheKernelsOfOpsLineOps) {
  const FrameworkOpStats s = compute_framework_op_stats(profile_);
  std::map<std::string, uint64_t> kernels_by_op;
  for (const KernelStatsRow& k : compute_kernel_stats(profile_).rows) kernels_by_op[k.op_name] += k.occurrences;
  size_t checked = 0;
  for (const auto& r : s.rows) {
    if (!r.on_device) continue;
    EXPECT_GE(r.kernel_count, 1u) << r.name;
    if (auto it = kernels_by_op.find(r.name); it != kernels_by_op.end()) {
      EXPECT_GE(r.kernel_count, it->second) << r.name;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 1330u);
}

TEST_F(TensorFlowFile, InputPipelineAndTfData) {
  const InputPipelineAnalysis ip = compute_input_pipeline_analysis(profile_, analyze_steps(profile_));
  EXPECT_EQ(verdict_name(ip.summary.verdict), "NOT");
  bool has_memcpy = false;
  for (const auto& r : ip.ops) has_memcpy |= r.name == "MemcpyH2D" && r.category == InputOpCategory::kEnqueue;
  EXPECT_TRUE(has_memcpy);

  const TfDataBottleneckAnalysis tf = compute_tf_data_bottleneck_analysis(profile_);
  ASSERT_EQ(tf.pipelines.size(), 1u);
  EXPECT_EQ(tf.pipelines[0].name, "Iterator::Prefetch");
  EXPECT_EQ(tf.pipelines[0].calls, 2u);
  ASSERT_GE(tf.pipelines[0].bottleneck, 0);
  EXPECT_EQ(tf.pipelines[0].nodes[size_t(tf.pipelines[0].bottleneck)].long_name, "Iterator::Prefetch::Generator");
  // A Generator makes its elements in user code: no file source (§5.7). And the run waits 0.5 %
  // of its steps for input, so the slowest stage is no problem to raise: it used to advise
  // "read files in parallel" for it.
  EXPECT_EQ(tf.pipelines[0].bottleneck_kind, "generator");
  EXPECT_EQ(verdict_name(tf.input_bound.verdict), "NOT");
  EXPECT_FALSE(tf.note.empty());
  EXPECT_TRUE(tf.pipelines[0].suggestion.empty());
  EXPECT_TRUE(to_json(tf)["summary"].is_null());
}

}  // namespace
}  // namespace mlprof::analysis
