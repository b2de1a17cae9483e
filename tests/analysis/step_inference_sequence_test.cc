// Steps of a profile with no markers, jit calls, module runs or DataLoader fetches (§5.1): found
// from the repeated sequence of its device's kernels (its host's top-level ops without a
// device), never splitting one iteration. The built traces' periods are known by construction;
// the real files' counts are a reader's, written beside each test.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "analysis/overview_page.h"
#include "analysis/step_breakdown.h"
#include "analysis/step_inference.h"
#include "analysis/testdata_files.h"
#include "analysis/training_profile.h"
#include "model/load_profile.h"

namespace mlprof::analysis {
namespace {

using namespace mlprof::testing;

int64_t at_ms(double ms) { return int64_t(ms * 1e9); }
double ms_of(int64_t ps) { return double(ps) / 1e9; }

TEST(SequencePeriod, ShortestPeriodCoveringTheMost) {
  // One item before, then 1 2 3 twice and a cut third repeat.
  const SequencePeriod p = find_sequence_period({9, 1, 2, 3, 1, 2, 3, 1, 2});
  EXPECT_EQ(p.period, 3u);
  EXPECT_EQ(p.first, 1u);
  EXPECT_EQ(p.covered, 8u);
  // A layer repeated inside each iteration does not win over the iteration: 4 x (e, (a b) x 3, l).
  std::vector<uint32_t> names;
  for (int i = 0; i < 4; ++i) names.insert(names.end(), {5, 1, 2, 1, 2, 1, 2, 6});
  EXPECT_EQ(find_sequence_period(names).period, 8u);
  // Nothing repeats back to back over two thirds of the items.
  EXPECT_EQ(find_sequence_period({1, 2, 3, 4, 1, 2, 5, 6, 7, 8}).period, 0u);
  EXPECT_EQ(find_sequence_period({1, 2, 1, 2, 5, 6, 7}).period, 0u);
  // One kernel over and over (a loop inside an op) is no iteration.
  EXPECT_EQ(find_sequence_period({1, 2, 1, 1, 1, 1}).period, 0u);
  EXPECT_EQ(find_sequence_period({3, 3, 3, 3, 3, 3}).period, 0u);
}

// `iterations` iterations of 10 ms: a host call "train_step" (no step marker) launching, 1 ms
// apart, embed, (layer_a, layer_b) x 3 and loss, each kernel 0.5 ms after its launch; before
// them, "setup" launches one init kernel. With `one_call`, a single "generate" call launches
// every iteration's kernels: the repeats are then parts of one iteration.
model::Profile layered_program(int iterations, bool one_call) {
  tensorflow::profiler::XSpace space;
  space.add_hostnames("trainer");
  auto host = add_plane(&space, 1, "/host:CPU");
  auto gpu = add_plane(&space, 2, "/device:GPU:0");
  auto* main = host.line(1, "main", 0);
  auto* stream = gpu.line(7, "Stream #7(Compute)", 0);
  uint64_t id = 1;
  auto launch = [&](double t, const char* kernel) {
    host.event(main, "cudaLaunchKernel", at_ms(t), at_ms(0.1), {{"correlation_id", id}});
    gpu.event(stream, kernel, at_ms(t + 0.5), at_ms(0.4), {{"correlation_id", id}});
    ++id;
  };
  host.event(main, "setup", at_ms(0), at_ms(2));
  launch(0.5, "init_kernel");
  if (one_call) host.event(main, "generate", at_ms(5), at_ms(10.0 * iterations));
  const char* kernels[] = {"embed", "layer_a", "layer_b", "layer_a", "layer_b", "layer_a", "layer_b", "loss"};
  for (int i = 0; i < iterations; ++i) {
    const double t0 = 5 + 10.0 * i;
    if (!one_call) host.event(main, "train_step", at_ms(t0), at_ms(9));
    for (int k = 0; k < 8; ++k) launch(t0 + 0.2 + k, kernels[k]);
  }
  return import_space(space);
}

TEST(StepInference, StepsFromARepeatedKernelSequence) {
  const model::Profile p = layered_program(5, false);
  const StepAnalysis sa = analyze_steps(p);
  EXPECT_EQ(sa.grouping.root_kind, "a repeated sequence of 8 kernels");
  ASSERT_EQ(sa.grouping.steps.size(), 5u);  // one a train_step call, not one a layer
  EXPECT_EQ(sa.grouping.left_out.total(), 0u);
  ASSERT_EQ(sa.steps.size(), 5u);
  for (size_t i = 0; i + 1 < sa.steps.size(); ++i) EXPECT_NEAR(ms_of(sa.steps[i].duration_ps), 10.0, 1e-6) << i;
  const OverviewPage page = compute_overview_page(p);
  EXPECT_EQ(step_source_words(page.step_marker), "found from a repeated sequence of 8 kernels");
  EXPECT_FALSE(page.whole_profile);
}

TEST(StepInference, RepeatsInsideOneCallAreOneIteration) {
  const StepAnalysis sa = analyze_steps(layered_program(5, true));
  EXPECT_TRUE(sa.whole_profile);  // "generate" holds every repeat: never split
  EXPECT_TRUE(sa.grouping.steps.empty());
}

TEST(StepInference, StepsFromRepeatedKernelsWithoutAHost) {
  tensorflow::profiler::XSpace space;
  auto gpu = add_plane(&space, 2, "/device:GPU:0");
  auto* stream = gpu.line(7, "Stream #7(Compute)", 0);
  for (int i = 0; i < 6; ++i)  // x y z 1 ms each, then 2 ms idle: 5 ms a step
    for (int k = 0; k < 3; ++k) gpu.event(stream, std::string(1, char('x' + k)), at_ms(5.0 * i + k), at_ms(1));
  const StepAnalysis sa = analyze_steps(import_space(space));
  EXPECT_EQ(sa.grouping.root_kind, "a repeated sequence of 3 kernels");
  EXPECT_EQ(sa.grouping.steps.size(), 6u);
}

const std::filesystem::path kTestdata = MLPROF_TESTDATA;

#define LOAD_OR_SKIP(p, dir, part)                                                                     \
  const std::filesystem::path file = testdata_file_named(kTestdata / (dir), part);                    \
  if (file.empty()) GTEST_SKIP() << (dir) << "/*" << (part) << "* not found (it is in ../shared/testdata)"; \
  model::Profile p;                                                                                    \
  model::LoadError error;                                                                              \
  ASSERT_TRUE(model::load_profile({file.string(), "", ""}, &p, &error)) << error.problem

// HTA's critical-path trace (an AlexNet benchmark on an A100): counted with Python over the
// trace's "kernel" events in time order, 79 kernels: one random-init kernel, then the same 39
// kernels twice, the first 39 under the annotation "[param|...|warmup|forward]", the next under
// "[param|...|measure|forward]": two iterations.
TEST(StepInferenceReal, HtaAlexNetBenchmarkHasTwoIterations) {
  LOAD_OR_SKIP(p, "pytorch", "critical_path__simple_add__");
  const StepAnalysis sa = analyze_steps(p);
  EXPECT_EQ(sa.grouping.root_kind, "a repeated sequence of 39 kernels");
  EXPECT_EQ(sa.grouping.steps.size(), 2u);
  EXPECT_EQ(sa.steps.size(), 2u);
}

// PARAM's linear model on an RTX 2080 Ti: 40 calls of Optimizer.step#SGD.step; counted with
// Python over the "kernel" events in time order, each with its launch (cuda_runtime, by
// correlation): an iteration ends with the kernels launched inside an Optimizer.step call, and
// the next begins with the forward's first kernel (aten::linear; zero_grad launches none). 136
// kernels come before the first such boundary (an iteration the capture began inside), then
// 39 iterations of 220 kernels each, the last one ending the trace: 39 whole iterations, each
// beginning at its forward pass. A step begun after the device's longest pause (before the
// optimizer's kernels) would straddle two iterations.
TEST(StepInferenceReal, ParamLinearHas39WholeIterations) {
  LOAD_OR_SKIP(p, "wild/param", "linear_kineto");
  const StepAnalysis sa = analyze_steps(p);
  EXPECT_EQ(sa.grouping.root_kind, "a repeated sequence of 220 kernels");
  ASSERT_FALSE(sa.grouping.steps.empty());
  EXPECT_EQ(sa.grouping.steps.size(), 39u);
  for (const Step& s : sa.grouping.steps) EXPECT_EQ(p.name(s.root), "aten::linear") << s.step_num;
}

// vLLM decode on a B200: 768 kernels, of which 756 repeat 42 by 42 (18 times: two of the
// model's 36 layers each), all launched inside the one annotation
// "execute_context_1(888_788544)_generation_0(0)" (counted with Python over the trace's
// "kernel" and "user_annotation" events): one iteration, which is not split into layers.
TEST(StepInferenceReal, VllmDecodeIsNotSplitIntoLayers) {
  LOAD_OR_SKIP(p, "wild/tracelens/kineto_b200", "eager_trace");
  const StepAnalysis sa = analyze_steps(p);
  EXPECT_LE(sa.steps.size(), 1u) << sa.grouping.root_kind;
}

}  // namespace
}  // namespace mlprof::analysis
