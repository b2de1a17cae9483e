// What bounds the step on real profiles from outside the project (../shared/testdata/wild,
// README there), against what a reader of each trace finds:
//   - OWLv2 on an H100 (TraceLens): the step waits 0.6 s of its 1.2 s in
//     enumerate(DataLoader)#...__next__ on the step's thread (a DataLoader without workers):
//     input.
//   - vLLM decode on a B200 (TraceLens): the GPU idles behind the host, which launches kernel
//     after kernel from Python: host (or kernel launch).
//   - JAX on a TPU v6e, XProf's host-offloading test: the device spends its time in copy-done
//     (host offload copies of 5 GiB buffers): copies.
// The 8-rank DLRM profile the issue names is not among the shared files; its check waits for it.
#include <gtest/gtest.h>

#include <filesystem>
#include <limits>
#include <set>
#include <string>

#include "analysis/critical_path/bottleneck.h"
#include "analysis/critical_path/critical_path.h"
#include "analysis/overview_page.h"
#include "analysis/step_breakdown.h"
#include "model/load_profile.h"
#include "testdata_files.h"

namespace mlprof::analysis {
namespace {

const std::filesystem::path kWild = std::filesystem::path(MLPROF_TESTDATA) / "wild";

// The critical path of the file in `dir` whose name holds `part`, or skips.
#define CRITICAL_PATH_OR_SKIP(c, dir, part)                                                         \
  const std::filesystem::path file = mlprof::testing::testdata_file_named(kWild / (dir), part);     \
  if (file.empty()) GTEST_SKIP() << (dir) << "/*" << (part) << "* not found (it is in ../shared/testdata)"; \
  model::Profile profile;                                                                            \
  model::LoadError error;                                                                            \
  ASSERT_TRUE(model::load_profile({file.string(), "", ""}, &profile, &error)) << error.problem;     \
  const CriticalPath c = compute_critical_path(profile, analyze_steps(profile))

TEST(CriticalPathWild, Owlv2OnH100IsInputBound) {
  CRITICAL_PATH_OR_SKIP(c, "tracelens/kineto_h100", "owlv2-large-patch14-ensemble__1016001.json");
  EXPECT_EQ(c.bottleneck(), PathKind::kInput);
  ASSERT_FALSE(c.top_ops.empty());
  EXPECT_TRUE(c.top_ops[0].name.starts_with("enumerate(DataLoader)")) << c.top_ops[0].name;
}

TEST(CriticalPathWild, VllmOnB200IsHostBound) {
  CRITICAL_PATH_OR_SKIP(c, "tracelens/kineto_b200", "eager_trace");
  const PathKind b = c.bottleneck();
  EXPECT_TRUE(b == PathKind::kHost || b == PathKind::kKernelLaunch) << path_kind_key(b);
}

// Meta's MTIA training step (HTA's single-rank MTIA trace): runFunction returns after the work
// it submitted ran, and the backward pass runs on the autograd engine's thread while the main
// thread waits in "## backward ##". A reader finds the device busy for most of the step (the
// step-time breakdown: 54.8 % device compute): the device bounds it, and the main thread's wait is
// not host work. Read as host work, the path was 100 % host compute yet halving it saved 3 %.
TEST(CriticalPathWild, MtiaTrainingIsBoundByTheDevice) {
  CRITICAL_PATH_OR_SKIP(c, "hta", "mtia_trace_single_rank");
  EXPECT_EQ(c.bottleneck(), PathKind::kDeviceCompute);
  EXPECT_GT(c.kind_ms[size_t(PathKind::kDeviceCompute)], 0.5 * c.path_ms);
  for (const PathTime& op : c.top_ops) EXPECT_NE(op.name, "## backward ##");
  EXPECT_LT(c.saving_if_removed_ms(PathKind::kHost), c.saving_if_removed_ms(PathKind::kDeviceCompute));
}

TEST(CriticalPathWild, TpuHostOffloadIsBoundByCopies) {
  CRITICAL_PATH_OR_SKIP(c, "xprof", "tpu_inference_2.xplane.pb");
  EXPECT_EQ(c.bottleneck(), PathKind::kCopies);
  // Said in a TPU's words: host offloading, not a GPU's pinned memory.
  const auto b = bottleneck_of(c);
  ASSERT_TRUE(b.has_value());
  EXPECT_NE(b->sentence().find("offloaded to the host"), std::string::npos) << b->sentence();
  EXPECT_EQ(b->sentence().find("pinned"), std::string::npos) << b->sentence();
  // Its ops by their HLO op name, not the instruction's text.
  EXPECT_NE(b->evidence.find("the most on the path: copy-done"), std::string::npos) << b->evidence;
  EXPECT_EQ(b->evidence.find("f32["), std::string::npos) << b->evidence;
}

// JAX's microbenchmarks on an MI300X (TraceLens's xplane files: conv, gemm, attention,
// elementwise) load no data: their only producer/consumer links are XLA's own (PjRt's context
// type 5, a library call's 14, a thread pool's 15, tsl's ContextType), which hand work over, not
// batches. Taken for input they made "bound by input" of a conv whose host dispatches kernels.
TEST(CriticalPathWild, XlaRuntimeLinksAreNotInput) {
  const std::filesystem::path dir = kWild / "tracelens" / "xplane";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << dir << " not found (it is in ../shared/testdata)";
  size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (!entry.path().string().ends_with(".xplane.pb")) continue;
    model::Profile profile;
    model::LoadError error;
    ASSERT_TRUE(model::load_profile({entry.path().string(), "", ""}, &profile, &error)) << error.problem;
    const StepAnalysis steps = analyze_steps(profile);
    const CriticalPath c = compute_critical_path(profile, steps, {}, WhatIfDefaults::kNone);
    if (c.steps.empty()) continue;
    ++files;
    EXPECT_EQ(c.kind_ms[size_t(PathKind::kInput)], 0) << entry.path().filename();
    EXPECT_NE(c.bottleneck(), PathKind::kInput) << entry.path().filename();
  }
  EXPECT_GE(files, 4u);
}

// HTA's trace_diff test trace: 72.5 % of the path is device compute, yet no change the replay
// can make shortens its steps (124.2 ms -> 124.1 ms halving device compute; every default
// what-if within 0.4 %). Its headline read "bound by device compute" beside that prediction.
TEST(CriticalPathWild, AHeadlineWhoseChangeSavesNothingSaysSo) {
  CRITICAL_PATH_OR_SKIP(c, "hta", "trace_diff__test__test.json");
  const auto b = bottleneck_of(c);
  ASSERT_TRUE(b.has_value());
  ASSERT_LT(b->saving_ms(), 0.01 * b->step_ms);
  EXPECT_TRUE(b->sentence().starts_with("72.5% of the step's critical path is device compute, yet no change"))
      << b->sentence();
  EXPECT_EQ(b->sentence().find("bound by"), std::string::npos) << b->sentence();
}

// Each recommendation's predicted step is the critical_path tool's what-if for the same change
// (one host: the overview's path is the tool's). At least `predicted` of them carry one.
void expect_predictions_match_the_tool(const model::Profile& profile, size_t predicted) {
  const OverviewPage page = compute_overview_page(profile);
  std::vector<WhatIfChange> changes;
  for (const Recommendation& r : page.recommendations)
    if (r.predicted_step_ms) changes.push_back(r.what_if);
  ASSERT_GE(changes.size(), predicted);
  const CriticalPath tool = compute_critical_path(profile, analyze_steps(profile), changes);
  ASSERT_EQ(tool.what_if.size(), changes.size());
  size_t i = 0;
  for (const Recommendation& r : page.recommendations) {
    if (!r.predicted_step_ms) {
      EXPECT_TRUE(r.change.empty()) << r.text;
      continue;
    }
    EXPECT_EQ(tool.what_if[i].target, r.what_if.target);
    EXPECT_NEAR(*r.predicted_step_ms, tool.what_if[i].step_ms, 1e-9) << r.text;
    EXPECT_NEAR(*r.step_ms, tool.path_ms, 1e-9) << r.text;
    EXPECT_NE(prediction_words(r).find("(predicted step: "), std::string::npos);
    // A change the path does not feel says so instead of a figure that does not move.
    EXPECT_EQ(r.gains_nothing(), *r.step_ms - *r.predicted_step_ms < 0.01 * *r.step_ms) << r.text;
    EXPECT_EQ(prediction_words(r).find("either way") != std::string::npos, r.gains_nothing()) << prediction_words(r);
    ++i;
  }
  // The most valuable change first: the predicted ones by saving, those gaining nothing last.
  double last_saving = std::numeric_limits<double>::infinity();
  for (const Recommendation& r : page.recommendations) {
    if (!r.predicted_step_ms) continue;
    const double saving = r.gains_nothing() ? 0 : *r.step_ms - *r.predicted_step_ms;
    EXPECT_LE(saving, last_saving) << r.text;
    last_saving = saving;
  }
}

TEST(CriticalPathWild, Owlv2RecommendationsCarryTheToolsPredictions) {
  CRITICAL_PATH_OR_SKIP(c, "tracelens/kineto_h100", "owlv2-large-patch14-ensemble__1016001.json");
  // The input advice ("waits for input") and the top op's are predicted: input and aten ops are on the path.
  expect_predictions_match_the_tool(profile, 2);
  const OverviewPage page = compute_overview_page(profile);
  bool input = false;
  for (const Recommendation& r : page.recommendations)
    if (r.what_if.target == "input") {
      input = true;
      EXPECT_LT(*r.predicted_step_ms, 0.6 * *r.step_ms) << "the step waits 0.6 s of 1.2 s for input";
    }
  EXPECT_TRUE(input);
}

TEST(CriticalPathWild, TensorFlowRecommendationsCarryTheToolsPredictions) {
  const std::filesystem::path file = std::filesystem::path(MLPROF_TESTDATA) / "tensorflow" / "gpu_multi_worker.xplane.pb";
  if (!std::filesystem::exists(file)) GTEST_SKIP() << file << " not found (it is in ../shared/testdata)";
  model::Profile profile;
  model::LoadError error;
  ASSERT_TRUE(model::load_profile({file.string(), "", ""}, &profile, &error)) << error.problem;
  expect_predictions_match_the_tool(profile, 1);
  // A kernel TensorFlow lists as an op too (its GPU ops are named by their kernels) is one
  // what-if, not two alike rows.
  const CriticalPath c = compute_critical_path(profile, analyze_steps(profile));
  std::set<std::pair<std::string, double>> rows;
  for (const WhatIfPrediction& w : c.what_if) EXPECT_TRUE(rows.emplace(w.target, w.scale).second) << w.target;
  // The untraced gaps (10 % of the path) save most in the replay, but they are what the trace
  // cannot show: the headline is the traced work that bounds the step, the device's compute
  // (49 % of the path; 72 % of the step breakdown). It read "bound by idle time".
  EXPECT_GT(c.saving_if_removed_ms(PathKind::kIdle), c.saving_if_removed_ms(PathKind::kDeviceCompute));
  EXPECT_EQ(c.bottleneck(), PathKind::kDeviceCompute);
}

}  // namespace
}  // namespace mlprof::analysis
