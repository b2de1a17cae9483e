// The profiler's own start and stop are in no step: names from real traces, a synthetic
// profile with known times, and the JAX MI300X profile whose whole-profile "step" was 7.97 s
// of jax.profiler's start_trace and stop_trace.
#include <gtest/gtest.h>

#include <filesystem>

#include "analysis/profiler_control.h"
#include "analysis/step_breakdown.h"
#include "analysis/testdata_files.h"
#include "analysis/training_profile.h"
#include "model/load_profile.h"

namespace mlprof::analysis {
namespace {

namespace fs = std::filesystem;
using namespace mlprof::testing;

// Names as the files in ../shared/testdata write them.
TEST(ProfilerControl, NamesOfTheProfilersOwnCalls) {
  EXPECT_EQ(profiler_control_of_name("$profiler.py:91 start_trace"), ProfilerControl::kStart);  // JAX, TraceMe
  EXPECT_EQ(profiler_control_of_name("$profiler.py:193 stop_trace"), ProfilerControl::kStop);
  EXPECT_EQ(profiler_control_of_name("torch/profiler/profiler.py(717): stop_trace"), ProfilerControl::kStop);
  EXPECT_EQ(profiler_control_of_name("torch/profiler/profiler.py(701): start_trace"), ProfilerControl::kStart);
  EXPECT_EQ(profiler_control_of_name("/usr/lib/python3/dist-packages/torch/profiler/profiler.py(12): stop"),
            ProfilerControl::kStop);
  EXPECT_EQ(profiler_control_of_name("torch/autograd/profiler.py(320): _start_trace"), ProfilerControl::kStart);
  EXPECT_EQ(profiler_control_of_name("$profiler_v2.py:120 stop"), ProfilerControl::kStop);  // TensorFlow
  EXPECT_EQ(profiler_control_of_name("<built-in method _disable_profiler of PyCapsule object at 0x7d6a9b3c7c30>"),
            ProfilerControl::kStop);
  // The program's own work, or the profiler's frames that enclose the program's work.
  EXPECT_EQ(profiler_control_of_name("torch/autograd/profiler.py(700): __exit__"), ProfilerControl::kNone);  // record_function
  EXPECT_EQ(profiler_control_of_name("$profiler.py:330 trace"), ProfilerControl::kNone);  // jax.profiler.trace's body
  EXPECT_EQ(profiler_control_of_name("/sgl-workspace/sglang/python/sglang/srt/utils/kernel_shape_profiler.py(88): impl"),
            ProfilerControl::kNone);
  EXPECT_EQ(profiler_control_of_name("sglang_profiler::rmsnorm_rmsnorm2d_fwd_109"), ProfilerControl::kNone);
  EXPECT_EQ(profiler_control_of_name("$train.py:12 stop"), ProfilerControl::kNone);
  EXPECT_EQ(profiler_control_of_name("aten::stop"), ProfilerControl::kNone);
}

// A script's frame spans 10 s: start_trace takes 2 s (with a nested call), the program works
// 1 s, stop_trace takes 7 s. The whole-profile step is the 1 s between them.
TEST(ProfilerControl, WholeProfileStepIsBetweenStartAndStop) {
  tensorflow::profiler::XSpace space;
  space.add_hostnames("trainer");
  auto host = add_plane(&space, 1, "/host:CPU");
  auto* main = host.line(100, "python", 1'700'000'000'000'000'000);
  host.event(main, "$train.py:1 <module>", 0, 10'000 * kPsPerMs);
  host.event(main, "$profiler.py:91 start_trace", 0, 2'000 * kPsPerMs);
  host.event(main, "$profiler.py:50 _create_session", 100 * kPsPerMs, 1'000 * kPsPerMs);
  host.event(main, "$train.py:9 train_step", 2'000 * kPsPerMs, 1'000 * kPsPerMs);
  host.event(main, "$profiler.py:193 stop_trace", 3'000 * kPsPerMs, 7'000 * kPsPerMs);
  const model::Profile p = import_space(space);
  const StepAnalysis sa = analyze_steps(p);
  ASSERT_TRUE(sa.whole_profile);
  ASSERT_EQ(sa.steps.size(), 1u);
  EXPECT_EQ(sa.steps[0].begin_ps, 2'000 * kPsPerMs);
  EXPECT_EQ(sa.steps[0].duration_ps, 1'000 * kPsPerMs);
  EXPECT_EQ(sa.profiler_control_ps, 9'000 * kPsPerMs);
  EXPECT_EQ(sa.steps[0].category_ps()[size_t(Category::kHostCompute)], 1'000 * kPsPerMs);
}

// wild/tracelens/xplane/*jax_conv_minimal_legacy*: JAX's start_trace (1.633 s) and stop_trace
// (6.304 s), as the trace's own events time them, were 99.7 % of the whole-profile step. The
// program marks no steps: its ten jit calls of forward_3d_conv (PjitFunction) are its steps, of
// a few milliseconds each (its 25 kernels run within 16 ms), the last one cut by the capture.
TEST(ProfilerControl, JaxMi300xProfileHasNoEightSecondStep) {
  const fs::path dir = fs::path(MLPROF_TESTDATA) / "wild/tracelens/xplane";
  const fs::path file = testdata_file_named(dir, "jax_conv_minimal_legacy");
  if (file.empty()) GTEST_SKIP() << dir << " not found (the real profiles are in ../shared/testdata)";
  model::Profile p;
  model::LoadError error;
  ASSERT_TRUE(model::load_profile({file.string(), "", ""}, &p, &error)) << error.problem;
  const StepAnalysis sa = analyze_steps(p);
  EXPECT_EQ(sa.grouping.root_kind, "jit calls");
  EXPECT_EQ(sa.grouping.steps.size(), 10u);
  ASSERT_EQ(sa.steps.size(), 9u);
  EXPECT_NEAR(double(sa.profiler_control_ps) / 1e12, 1.633 + 6.304, 0.002);
  int64_t total_ps = 0;
  for (const StepBreakdown& s : sa.steps) {
    EXPECT_LT(double(s.duration_ps) / 1e9, 16.0);
    total_ps += s.duration_ps;
  }
  EXPECT_LT(double(total_ps) / 1e9, 50.0);  // the program's work, without the profiler's 7.9 s
}

}  // namespace
}  // namespace mlprof::analysis
