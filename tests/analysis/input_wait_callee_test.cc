// The Python code a step's thread ran while the step waited for input: a PyTorch trace with
// known times, and the Hugging Face timesformer run on an H100 (wild/tracelens/kineto_h100).
#include <gtest/gtest.h>

#include <filesystem>

#include "analysis/input_pipeline_analyzer.h"
#include "analysis/input_wait_callee.h"
#include "model/load_profile.h"
#include "model/pytorch/importer.h"

namespace mlprof::analysis {
namespace {

namespace fs = std::filesystem;

// One step of 100 ms on thread 1 (times in ms):
//   train.py(10): train_step   [0, 100]
//     train.py(20): load_batch [0, 60]      the batch, made on the step's thread
//       data.py(5): decode     [5, 55]
//   cudaMemcpyAsync            [60, 61]  -> Memcpy HtoD [61, 62] on the GPU
//   cudaLaunchKernel           [62, 63]  -> a kernel [63, 100]
// The GPU waits for the host's input from the step's start to the copy (61 ms) and copies
// for 1 ms: 62 ms of input wait. load_batch spends all its 60 ms in it (the stage); decode,
// 50 ms, is the innermost frame holding half the wait; train_step spends 62 of 100 ms in it.
constexpr const char* kLoadOnTheStepThread = R"json({"schemaVersion":1,"traceEvents":[
  {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100000},
  {"ph":"X","cat":"python_function","name":"train.py(10): train_step","pid":1,"tid":1,"ts":0,"dur":100000},
  {"ph":"X","cat":"python_function","name":"train.py(20): load_batch","pid":1,"tid":1,"ts":0,"dur":60000},
  {"ph":"X","cat":"python_function","name":"data.py(5): decode","pid":1,"tid":1,"ts":5000,"dur":50000},
  {"ph":"X","cat":"cuda_runtime","name":"cudaMemcpyAsync","pid":1,"tid":1,"ts":60000,"dur":1000,"args":{"correlation":1}},
  {"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pageable -> Device)","pid":0,"tid":7,"ts":61000,"dur":1000,
   "args":{"device":0,"stream":7,"correlation":1}},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":62000,"dur":1000,"args":{"correlation":2}},
  {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":63000,"dur":37000,"args":{"device":0,"stream":7,"correlation":2}}
]})json";

TEST(InputWaitCallee, KnownTimesOnTheStepThread) {
  const std::string json = kLoadOnTheStepThread;
  model::Profile p;
  std::string error;
  ASSERT_TRUE(model::import_pytorch_trace_bytes(json.data(), json.size(), "host0", &p, &error)) << error;
  const StepAnalysis sa = analyze_steps(p);
  ASSERT_EQ(sa.steps.size(), 1u);
  const auto callee = find_input_wait_callee(p, sa);
  ASSERT_TRUE(callee.has_value());
  EXPECT_NEAR(double(callee->wait_ps) / 1e9, 62.0, 1e-6);
  EXPECT_EQ(callee->stage, "train.py(20): load_batch");
  EXPECT_NEAR(double(callee->stage_ps) / 1e9, 60.0, 1e-6);
  EXPECT_EQ(callee->callee, "data.py(5): decode");
  EXPECT_NEAR(double(callee->callee_ps) / 1e9, 50.0, 1e-6);

  // The input page names it first, in PyTorch's words, instead of the 1 ms copy's advice.
  const InputPipelineAnalysis a = compute_input_pipeline_analysis(p, sa);
  ASSERT_FALSE(a.recommendations.empty());
  EXPECT_NE(a.recommendations.front().find("data.py(5): decode (50.0 ms)"), std::string::npos) << a.recommendations.front();
  EXPECT_NE(a.recommendations.front().find("num_workers > 0"), std::string::npos);
  for (const std::string& r : a.recommendations) EXPECT_EQ(r.find("pinned memory"), std::string::npos) << r;
}

// wild/tracelens/kineto_h100, timesformer: the step (ProfilerStep#6, 382.5 ms) waits 221.6 ms
// for input, while its thread runs the pipeline's preprocess (its python_function event lasts
// 217.474 ms) and within it VideoMAE's image processor (178.200 ms); the only input op is a
// 3.6 ms cudaMemcpyAsync. Durations read from the trace's JSON.
TEST(InputWaitCallee, TimesformerPreprocessingOnH100) {
  const fs::path file = fs::path(MLPROF_TESTDATA) /
                        "wild/tracelens/kineto_h100/tracelens__traces_h100_facebook_timesformer-base-finetuned-k400__1016002.json.gz";
  if (!fs::exists(file)) GTEST_SKIP() << file << " not found (the real profiles are in ../shared/testdata)";
  model::Profile p;
  model::LoadError error;
  ASSERT_TRUE(model::load_profile({file.string(), "", ""}, &p, &error)) << error.problem;
  const StepAnalysis sa = analyze_steps(p);
  const auto callee = find_input_wait_callee(p, sa);
  ASSERT_TRUE(callee.has_value());
  EXPECT_NEAR(double(callee->wait_ps) / 1e9, 221.6, 0.1);
  EXPECT_EQ(callee->stage, "transformers/pipelines/video_classification.py(129): preprocess");
  EXPECT_NEAR(double(callee->stage_ps) / 1e9, 217.474, 0.01);
  EXPECT_EQ(callee->callee, "transformers/models/videomae/image_processing_videomae.py(235): preprocess");
  EXPECT_NEAR(double(callee->callee_ps) / 1e9, 178.200, 0.01);
}

}  // namespace
}  // namespace mlprof::analysis
