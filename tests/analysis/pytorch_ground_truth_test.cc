// Ground truth for PyTorch traces: a trace written here in Kineto's format with known times
// (µs), read by the importer and analysed as a user's trace is. Three 100 ms steps, each:
//   main thread  ProfilerStep#N [0,100000]
//                  enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__ [0,30000]
//                    aten::stack [1000,11000]                    (collate)
//                  aten::to [30000,32000]
//                    cudaMemcpyAsync [30200,31700]  -> Memcpy HtoD [30300,31300] on the GPU
//                  aten::conv2d [35000,45000]
//                    aten::cudnn_convolution [35100,44100]
//                      [memory] +1 GiB at 35150 (2 GiB allocated, 2 GiB reserved)
//                      cudaLaunchKernel [35200,35300]     -> a 50 ms kernel [36000,86000]
//                  [memory] -1 GiB at 90000
// on a GPU of 31.75 GiB (deviceProperties' totalGlobalMem), and a CPU allocation that fills the
// CPU's pool. Expected values follow from these times and §5.1–§5.5; nothing comes from mlprof.
#include <gtest/gtest.h>

#include <string>

#include "analysis/framework_op_stats.h"
#include "analysis/input_pipeline_analyzer.h"
#include "analysis/memory_profile.h"
#include "analysis/overview_page.h"
#include "model/pytorch/importer.h"

namespace mlprof::analysis {
namespace {

constexpr int64_t kGiB = int64_t(1) << 30;
constexpr int64_t kGpuMemory = 34089730048;  // 31.75 GiB

std::string event(std::string_view json) { return std::string(json) + ",\n"; }

std::string trace(std::string_view loader) {
  std::string events;
  for (int s = 0; s < 3; ++s) {
    const int64_t t0 = 100000 * int64_t(s);
    auto at = [&](int64_t us) { return std::to_string(t0 + us); };
    const std::string c1 = std::to_string(10 * s + 1), c2 = std::to_string(10 * s + 2);
    events += event(R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep#)" + std::to_string(s + 1) +
                    R"(","pid":1,"tid":1,"ts":)" + at(0) + R"(,"dur":100000})");
    events += event(R"({"ph":"X","cat":"user_annotation","name":"enumerate(DataLoader)#)" + std::string(loader) +
                    R"(.__next__","pid":1,"tid":1,"ts":)" + at(0) + R"(,"dur":30000})");
    events += event(R"({"ph":"X","cat":"cpu_op","name":"aten::stack","pid":1,"tid":1,"ts":)" + at(1000) +
                    R"(,"dur":10000})");
    events += event(R"({"ph":"X","cat":"cpu_op","name":"aten::to","pid":1,"tid":1,"ts":)" + at(30000) +
                    R"(,"dur":2000})");
    events += event(R"({"ph":"X","cat":"cuda_runtime","name":"cudaMemcpyAsync","pid":1,"tid":1,"ts":)" + at(30200) +
                    R"(,"dur":1500,"args":{"correlation":)" + c1 + "}}");
    events += event(R"j({"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pageable -> Device)","pid":0,"tid":7,"ts":)j" +
                    at(30300) + R"(,"dur":1000,"args":{"device":0,"stream":7,"correlation":)" + c1 + "}}");
    events += event(R"({"ph":"X","cat":"cpu_op","name":"aten::conv2d","pid":1,"tid":1,"ts":)" + at(35000) +
                    R"(,"dur":10000})");
    events += event(R"({"ph":"X","cat":"cpu_op","name":"aten::cudnn_convolution","pid":1,"tid":1,"ts":)" +
                    at(35100) + R"(,"dur":9000})");
    events += event(R"({"ph":"i","s":"t","cat":"cpu_instant_event","name":"[memory]","pid":1,"tid":1,"ts":)" +
                    at(35150) + R"(,"args":{"Device Type":1,"Device Id":0,"Addr":4096,"Bytes":)" +
                    std::to_string(kGiB) + R"(,"Total Allocated":)" + std::to_string(2 * kGiB) +
                    R"(,"Total Reserved":)" + std::to_string(2 * kGiB) + "}}");
    events += event(R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":)" + at(35200) +
                    R"(,"dur":100,"args":{"correlation":)" + c2 + "}}");
    events += event(R"({"ph":"X","cat":"kernel","name":"implicit_convolve_sgemm","pid":0,"tid":7,"ts":)" + at(36000) +
                    R"(,"dur":50000,"args":{"device":0,"stream":7,"correlation":)" + c2 + "}}");
    events += event(R"({"ph":"i","s":"t","cat":"cpu_instant_event","name":"[memory]","pid":1,"tid":1,"ts":)" +
                    at(90000) + R"(,"args":{"Device Type":1,"Device Id":0,"Addr":4096,"Bytes":)" +
                    std::to_string(-kGiB) + R"(,"Total Allocated":)" + std::to_string(kGiB) +
                    R"(,"Total Reserved":)" + std::to_string(2 * kGiB) + "}}");
  }
  // The CPU: 8 bytes allocated and the pool exactly that big.
  events += event(R"({"ph":"i","s":"t","cat":"cpu_instant_event","name":"[memory]","pid":1,"tid":1,"ts":36500,)"
                  R"("args":{"Device Type":0,"Device Id":-1,"Addr":8192,"Bytes":8,"Total Allocated":8,"Total Reserved":8}})");
  events += R"({"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"python3"}})";
  return R"({"schemaVersion":1,"deviceProperties":[{"id":0,"name":"Test GPU","totalGlobalMem":)" +
         std::to_string(kGpuMemory) + R"(,"computeMajor":7,"computeMinor":0,"numSms":80}],)"
         R"("traceEvents":[)" + events + "]}";
}

model::Profile load(std::string_view loader) {
  const std::string json = trace(loader);
  model::Profile p;
  std::string error;
  EXPECT_TRUE(model::import_pytorch_trace_bytes(json.data(), json.size(), "host0", &p, &error)) << error;
  return p;
}

double ms(int64_t ps) { return double(ps) / 1e9; }

TEST(PyTorchGroundTruth, DataLoaderAndHostToDeviceCopiesAreInput) {
  const model::Profile p = load("_SingleProcessDataLoaderIter");
  const StepAnalysis sa = analyze_steps(p);
  ASSERT_EQ(sa.steps.size(), 3u);
  for (const StepBreakdown& s : sa.steps) {
    EXPECT_NEAR(ms(s.duration_ps), 100.0, 1e-9);
    // The loader on the step's thread [0,30], the GPU idle until the copy the host issues at
    // 30.2 starts (30.3), and the copy itself [30.3,31.3]: 31.3 ms of input.
    EXPECT_NEAR(ms(s.category_ps()[size_t(Category::kInput)]), 31.3, 1e-9);
  }
  const InputPipelineAnalysis a = compute_input_pipeline_analysis(p, sa);
  EXPECT_EQ(verdict_name(a.summary.verdict), "HIGHLY");
  EXPECT_NEAR(a.summary.input_pct, 31.3, 1e-6);
  EXPECT_TRUE(a.no_input_ops.empty());
  // Host side: the loader's iterations are data preprocessing (no workers), 30 ms each with the
  // collate inside; the runtime call that copies to the GPU is enqueuing, 1.5 ms each.
  ASSERT_EQ(a.ops.size(), 2u);
  EXPECT_EQ(a.ops[0].name, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__");
  EXPECT_EQ(a.ops[0].category, InputOpCategory::kPreprocessing);
  EXPECT_EQ(a.ops[0].count, 3u);
  EXPECT_NEAR(ms(a.ops[0].self_ps), 90.0, 1e-9);
  EXPECT_EQ(a.ops[1].name, "cudaMemcpyAsync");
  EXPECT_EQ(a.ops[1].category, InputOpCategory::kEnqueue);
  EXPECT_NEAR(ms(a.ops[1].self_ps), 4.5, 1e-9);
  EXPECT_NEAR(ms(a.category_self_ps[size_t(InputOpCategory::kPreprocessing)]), 90.0, 1e-9);
  EXPECT_NEAR(ms(a.category_self_ps[size_t(InputOpCategory::kEnqueue)]), 4.5, 1e-9);
  ASSERT_GE(a.recommendations.size(), 2u);
  EXPECT_NE(a.recommendations[1].find("data preprocessing"), std::string::npos) << a.recommendations[1];
}

TEST(PyTorchGroundTruth, ALoaderWithWorkersIsWaitingForThem) {
  const model::Profile p = load("_MultiProcessingDataLoaderIter");
  const InputPipelineAnalysis a = compute_input_pipeline_analysis(p, analyze_steps(p));
  ASSERT_FALSE(a.ops.empty());
  EXPECT_EQ(a.ops[0].category, InputOpCategory::kWaitForWorkers);
  EXPECT_NEAR(ms(a.category_self_ps[size_t(InputOpCategory::kWaitForWorkers)]), 90.0, 1e-9);
  ASSERT_GE(a.recommendations.size(), 2u);
  EXPECT_NE(a.recommendations[1].find("worker processes"), std::string::npos) << a.recommendations[1];
}

TEST(PyTorchGroundTruth, DeviceTotalCountsTheKernelsOfCalledOps) {
  const FrameworkOpStats stats = compute_framework_op_stats(load("_SingleProcessDataLoaderIter"));
  auto device_row = [&](std::string_view name) -> const OpStatsRow* {
    for (const auto& r : stats.rows)
      if (r.on_device && r.name == name) return &r;
    return nullptr;
  };
  // aten::conv2d launches nothing itself: its kernels come from aten::cudnn_convolution (§5.3).
  const OpStatsRow* conv = device_row("aten::conv2d");
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->occurrences, 3u);  // calls, not kernels
  EXPECT_EQ(conv->kernel_count, 3u);
  EXPECT_NEAR(ms(conv->total_ps), 150.0, 1e-9);
  EXPECT_EQ(conv->self_ps, 0);
  const OpStatsRow* cudnn = device_row("aten::cudnn_convolution");
  ASSERT_NE(cudnn, nullptr);
  EXPECT_NEAR(ms(cudnn->total_ps), 150.0, 1e-9);
  EXPECT_NEAR(ms(cudnn->self_ps), 150.0, 1e-9);
  const OpStatsRow* to = device_row("aten::to");
  ASSERT_NE(to, nullptr);
  EXPECT_NEAR(ms(to->self_ps), 3.0, 1e-9);
  EXPECT_EQ(device_row("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"), nullptr);
  EXPECT_NEAR(ms(stats.device_self_ps), 153.0, 1e-9);  // every kernel and copy once
}

TEST(PyTorchGroundTruth, MemoryCapacityIsTheDevicesNotThePool) {
  const model::Profile p = load("_SingleProcessDataLoaderIter");
  const MemoryProfile m = compute_memory_profile(p);
  ASSERT_EQ(m.memory_ids.size(), 2u);
  const MemoryIdProfile& gpu = m.memory_ids[0];
  EXPECT_EQ(gpu.summary.memory_id, "cuda:0");
  EXPECT_EQ(gpu.summary.capacity_bytes, kGpuMemory);
  EXPECT_EQ(gpu.summary.reserved_bytes, 2 * kGiB);
  EXPECT_EQ(gpu.summary.peak_heap_bytes, 2 * kGiB);
  // At the peak: the block the convolution allocated, and one allocated before the profile.
  ASSERT_FALSE(gpu.breakdown.empty());
  EXPECT_EQ(gpu.breakdown[0].allocation_bytes, kGiB);
  bool conv = false;
  for (const auto& r : gpu.breakdown) conv |= r.op == "aten::cudnn_convolution" && r.allocation_bytes == kGiB;
  EXPECT_TRUE(conv);
  const MemoryIdProfile& cpu = m.memory_ids[1];
  EXPECT_EQ(cpu.summary.memory_id, "cpu");
  EXPECT_EQ(cpu.summary.capacity_bytes, 0);  // unknown: the trace does not say the host's memory
  EXPECT_EQ(cpu.summary.reserved_bytes, 8);
  const nlohmann::json j = to_json(m);
  EXPECT_EQ(j["memory_ids"][0]["summary"]["peak_bytes"], 2 * kGiB);
  // The pool full at the peak is no alarm: 2 GiB of 31.75, and the CPU's size is unknown.
  for (const Recommendation& r : compute_overview_page(p).recommendations)
    EXPECT_EQ(r.text.find("Memory peaks"), std::string::npos) << r.text;
}

// GPU-side work in categories other than kernel, memcpy and memset: MTIA's ccp events are
// device work; a category mlprof does not know, on a device stream, is read as device work and
// the profile's warnings say so; gpu_user_annotation ranges are annotations on the device.
TEST(PyTorchGroundTruth, DeviceWorkInOtherCategories) {
  const std::string json = R"({"schemaVersion":1,"traceEvents":[
    {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":0,"dur":100},
    {"ph":"X","cat":"mtia_ccp_events","name":"mm_kernel","pid":0,"tid":3,"ts":10,"dur":50,"args":{"device":0,"stream":3}},
    {"ph":"X","cat":"new_device_events","name":"other_work","pid":0,"tid":3,"ts":70,"dur":20,"args":{"device":0,"stream":3}},
    {"ph":"X","cat":"gpu_user_annotation","name":"forward","pid":0,"tid":3,"ts":5,"dur":90,"args":{"device":0,"stream":3}}
  ]})";
  model::Profile p;
  std::string error;
  ASSERT_TRUE(model::import_pytorch_trace_bytes(json.data(), json.size(), "host0", &p, &error)) << error;
  size_t on_streams = 0, annotations = 0;
  for (model::EventIndex e = 0; e < p.num_events(); ++e) {
    const model::Line& line = p.line_of(e);
    if (p.planes[line.plane].kind != model::PlaneKind::kDevice) continue;
    on_streams += line.kind == model::LineKind::kStream;
    annotations += line.kind == model::LineKind::kNameScope;
  }
  EXPECT_EQ(on_streams, 2u);
  EXPECT_EQ(annotations, 1u);
  // The device whose work came as MTIA's is named an MTIA, not a GPU.
  size_t device_planes = 0;
  for (const model::Plane& plane : p.planes)
    if (plane.kind == model::PlaneKind::kDevice) {
      ++device_planes;
      EXPECT_EQ(p.strings.view(plane.name), "/device:MTIA:0");
    }
  EXPECT_EQ(device_planes, 1u);
  size_t warned = 0;
  for (const std::string& w : p.warnings) warned += w.find("\"new_device_events\"") != std::string::npos;
  EXPECT_EQ(warned, 1u);
}

// A step marker that encloses no device work is left out, and the whole profile becomes one
// step; the marker itself is no work (it used to count as 1 s of host compute). Times (µs):
//   process 2 ProfilerStep#1 [0,1000000]
//   process 1 aten::add [100,300]
//               cudaLaunchKernel [150,200]  -> a kernel [250,260] on the GPU
// The pseudo step spans the traced activity, [100,300]: 200 µs, 50 of them launching.
TEST(PyTorchGroundTruth, AStepMarkerWithoutDeviceWorkIsNoHostCompute) {
  const std::string json =
      R"({"schemaVersion":1,"traceEvents":[)"
      R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":2,"tid":2,"ts":0,"dur":1000000},)"
      R"({"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":100,"dur":200},)"
      R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":150,"dur":50,"args":{"correlation":1}},)"
      R"({"ph":"X","cat":"kernel","name":"add_kernel","pid":0,"tid":7,"ts":250,"dur":10,"args":{"device":0,"stream":7,"correlation":1}}]})";
  model::Profile p;
  std::string error;
  ASSERT_TRUE(model::import_pytorch_trace_bytes(json.data(), json.size(), "host0", &p, &error)) << error;
  const StepAnalysis sa = analyze_steps(p);
  ASSERT_TRUE(sa.whole_profile);
  ASSERT_EQ(sa.steps.size(), 1u);
  EXPECT_NEAR(ms(sa.steps[0].duration_ps), 0.2, 1e-9);
  EXPECT_NEAR(ms(sa.steps[0].category_ps()[size_t(Category::kKernelLaunch)]), 0.05, 1e-9);
  EXPECT_LE(ms(sa.steps[0].category_ps()[size_t(Category::kHostCompute)]), 0.15 + 1e-9);
  const OverviewPage page = compute_overview_page(p);
  ASSERT_FALSE(page.recommendations.empty());
  EXPECT_EQ(page.recommendations[0].text.find("No step markers"), std::string::npos) << page.recommendations[0].text;
  EXPECT_NE(page.recommendations[0].text.find("1 step marker(s) (torch.profiler's step()) were found"), std::string::npos)
      << page.recommendations[0].text;
}

}  // namespace
}  // namespace mlprof::analysis
