// Real PyTorch traces (Kineto, 2021-2024, CUDA and ROCm) from ../shared/testdata/pytorch. The
// expected counts were taken from the JSON with Python's json and gzip modules, independently
// of the importer: X events by `cat` (cpu_op and user_annotation together as host ops,
// cuda_runtime and cuda_driver together as runtime, the profiler's "Trace" span left out)
// and "[memory]" instants (global instants left out).
#include <gtest/gtest.h>

#include <filesystem>

#include "analysis/framework_op_stats.h"
#include "analysis/overview_page.h"
#include "analysis/profile_diff.h"
#include "analysis/step_grouping.h"
#include "model/pytorch_importer.h"
#include "model/pytorch_test_support.h"

namespace mlprof::model {
namespace {

using namespace mlprof::testing;

const std::string kDir = std::string(MLPROF_TESTDATA) + "/pytorch/";

bool have_testdata() { return std::filesystem::is_directory(kDir); }
#define REQUIRE_TESTDATA() \
  if (!have_testdata()) GTEST_SKIP() << "PyTorch test data not found at " << kDir << " (needs ../shared/testdata)"

Profile load(const std::string& file) {
  Profile p;
  std::string error;
  EXPECT_TRUE(import_pytorch_trace_file(kDir + file, file, &p, &error)) << file << ": " << error;
  return p;
}

struct Expected {
  const char* file;
  CategoryCounts counts;
  size_t steps;          // ProfilerStep#N on host threads
  const char* device;    // the device plane, or "" when there is none
  int64_t origin_ns;     // the earliest event: ts × 1000 + baseTimeNanoseconds
};

const Expected kFiles[] = {
    {"amd_trace__mi250_minitoy_train_ROCm6_2_kineto.json.gz",
     {.host_ops = 73, .runtime = 21, .kernels = 14, .memcpys = 2, .gpu_annotations = 2}, 2, "/device:GPU:2",
     1739836029603187439},
    {"call_stack__backward_thread.json", {.host_ops = 5, .runtime = 1, .kernels = 1}, 1, "/device:GPU:0",
     1666149715033200000},
    {"cpu_only__rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz", {.host_ops = 15}, 1, "", 1721065959529876817},
    {"critical_path__simple_add__benchmark_result_493459_1694039959_trace.json.gz",
     {.host_ops = 367, .runtime = 331, .kernels = 79, .memcpys = 16, .memsets = 3, .syncs = 41}, 0, "/device:GPU:0",
     1694039968955744000},
    {"df_index_resolver__df_index_resolver.json.gz",
     {.host_ops = 58715, .runtime = 42373, .kernels = 19370, .memcpys = 2040, .memsets = 880, .memory = 28010}, 5,
     "/device:GPU:1", 1669783687384669000},
    {"nccl_parser_config__nccl_data.json.gz",
     {.host_ops = 14388, .runtime = 8740, .kernels = 2700, .memcpys = 960, .memsets = 114, .gpu_annotations = 30}, 3,
     "/device:GPU:0", 1716423322416788066},
    {"ns_resolution_trace__rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
     {.host_ops = 23980, .runtime = 15329, .kernels = 4350, .memcpys = 1600, .memsets = 145, .gpu_annotations = 15},
     5, "/device:GPU:0", 1712195495502094565},
    {"trace_compare__base__base.json.gz", {.host_ops = 10, .runtime = 5, .kernels = 6, .memcpys = 6, .memsets = 6}, 2,
     "/device:GPU:1", 1661938466265032000},
    {"trace_compare__test__test.json.gz", {.host_ops = 12, .runtime = 5, .kernels = 5, .memcpys = 6, .memsets = 6}, 2,
     "/device:GPU:1", 1661938466265032000},
    {"triton_example__triton_example.json.gz", {.host_ops = 4, .runtime = 2, .kernels = 1}, 1, "/device:GPU:0",
     1730156791096090100},
};

TEST(PyTorchTestdata, EveryFileLoadsWithItsEventsPerCategory) {
  REQUIRE_TESTDATA();
  size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kDir)) files += entry.is_regular_file();
  EXPECT_EQ(files, std::size(kFiles)) << "a file was added to the test data: add its counts here";
  for (const Expected& x : kFiles) {
    SCOPED_TRACE(x.file);
    const Profile p = load(x.file);
    EXPECT_EQ(count_categories(p), x.counts);
    EXPECT_EQ(p.origin_ns, x.origin_ns);
    size_t steps = 0;
    for (EventIndex e = 0; e < p.num_events(); ++e) steps += p.stat(e, kStepNum).has_value();
    EXPECT_EQ(steps, x.steps);
    std::string devices;
    for (const Plane& plane : p.planes)
      if (plane.kind == PlaneKind::kDevice) devices += p.strings.view(plane.name);
    EXPECT_EQ(devices, x.device);
    // Every line is sorted and nests properly: a parent starts no later and ends no earlier.
    for (const Line& line : p.lines)
      for (EventIndex e = line.first_event; e < line.first_event + line.num_events; ++e) {
        if (e > line.first_event) {
          ASSERT_LE(p.start_ps(e - 1), p.start_ps(e));
        }
        const EventIndex parent = p.events.parent[e];
        if (parent == kNone) continue;
        ASSERT_EQ(p.line_index(parent), p.line_index(e));
        ASSERT_LE(p.start_ps(parent), p.start_ps(e));
        ASSERT_GE(p.end_ps(parent), p.end_ps(e));
      }
  }
}

TEST(PyTorchTestdata, MemoryProfileRecordsKeepTheirPeak) {
  REQUIRE_TESTDATA();
  const Profile p = load("df_index_resolver__df_index_resolver.json.gz");
  const StringId allocated = p.strings.find("bytes_allocated"), allocator = p.strings.find("allocator_name");
  int64_t max_allocated = -1;
  size_t records = 0, on_gpu = 0;
  for (EventIndex e = 0; e < p.num_events(); ++e) {
    const auto v = p.stat(e, allocated);
    if (!v) continue;
    ++records;
    max_allocated = std::max(max_allocated, v->as_int());
    on_gpu += p.string_of(*p.stat(e, allocator)).starts_with("cuda:");
  }
  EXPECT_EQ(records, 28010u);
  EXPECT_EQ(max_allocated, 6629508096);  // the largest "Total Allocated" in the file
  EXPECT_GT(on_gpu, 0u);
  // The device's own properties ride on its plane.
  for (uint32_t i = 0; i < p.planes.size(); ++i)
    if (p.planes[i].kind == PlaneKind::kDevice) {  // V100
      EXPECT_EQ(p.plane_stat(i, kCoreCount)->as_int(), 80);
    }
}

TEST(PyTorchTestdata, NanosecondTimestampsSurvive) {
  REQUIRE_TESTDATA();
  const Profile p = load("ns_resolution_trace__rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz");
  size_t sub_microsecond = 0;
  // The origin's nanoseconds within its microsecond: in picoseconds the whole origin overflows int64.
  const int64_t origin_ps_in_us = p.origin_ns % 1000 * 1000;
  for (EventIndex e = 0; e < p.num_events(); ++e) sub_microsecond += (origin_ps_in_us + p.start_ps(e)) % 1000000 != 0;
  EXPECT_GT(sub_microsecond, p.num_events() / 2);
  for (EventIndex e = 0; e < p.num_events(); ++e) ASSERT_EQ(p.start_ps(e) % 1000, 0);  // ns, never rounded finer
}

TEST(PyTorchTestdata, CpuOnlyTraceHasAnOverviewWithoutDevice) {
  REQUIRE_TESTDATA();
  const Profile p = load("cpu_only__rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz");
  const analysis::OverviewPage page = analysis::compute_overview_page(p);
  EXPECT_EQ(page.environment.device_type, "CPU");
  EXPECT_EQ(page.environment.device_count, 0u);
  // Named as the host picker names it (the file), the rank the trace recorded after it.
  EXPECT_EQ(page.environment.hosts,
            std::vector<std::string>{"cpu_only__rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz (rank34)"});
  EXPECT_EQ(page.environment.host_thread_count, 3u);
  ASSERT_EQ(page.steps.size(), 1u);
  EXPECT_EQ(page.steps[0].step_num, 551);
  EXPECT_EQ(page.steps[0].breakdown_ps[size_t(analysis::Category::kDeviceCompute)], 0);
  EXPECT_GT(page.steps[0].breakdown_ps[size_t(analysis::Category::kHostCompute)], 0);
  EXPECT_FALSE(page.top_ops_on_device);
  ASSERT_FALSE(page.top_ops.empty());
  EXPECT_EQ(page.top_ops.front().name, "gloo:all_reduce");  // 2.1 s on two background threads
}

TEST(PyTorchTestdata, BackwardThreadJoinsItsStep) {
  REQUIRE_TESTDATA();
  const Profile p = load("call_stack__backward_thread.json");
  ASSERT_EQ(p.planes[0].num_lines, 2u);
  const Line& forward = p.lines[p.planes[0].first_line];
  const Line& backward = p.lines[p.planes[0].first_line + 1];
  EXPECT_EQ(forward.id, 3914);
  EXPECT_EQ(p.strings.view(forward.name), "thread 3914");
  EXPECT_EQ(backward.id, 24922);
  EXPECT_EQ(p.strings.view(backward.name), "thread 24922");
  EXPECT_EQ(p.name(forward.first_event), "ProfilerStep#552");
  EXPECT_EQ(p.name(backward.first_event), "autograd::engine::evaluate_function: AddmmBackward0");
  // The kernel launched from the autograd thread belongs to the step of the forward thread,
  // and is named by the op that launched it.
  const analysis::StepGrouping g = analysis::group_steps(p);
  ASSERT_EQ(g.steps.size(), 1u);
  EXPECT_EQ(g.steps[0].step_num, 552);
  const EventIndex kernel = find_event(p, "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>");
  EXPECT_EQ(g.group_of[kernel], 0);
  EXPECT_EQ(g.group_of[find_event(p, "aten::mm")], 0);
  const analysis::FrameworkOpStats ops = analysis::compute_framework_op_stats(p, {});
  bool device_mm = false;
  for (const auto& row : ops.rows) device_mm |= row.on_device && row.name == "aten::mm";
  EXPECT_TRUE(device_mm);
}

TEST(PyTorchTestdata, StepsSpanTheGpuWorkTheyLaunched) {
  REQUIRE_TESTDATA();
  const Profile p = load("ns_resolution_trace__rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz");
  const analysis::StepGrouping g = analysis::group_steps(p);
  ASSERT_EQ(g.steps.size(), 5u);
  // §5.1 (torch-tb-profiler's rule): a step starts at the later of its host start and the end of
  // the step before, and ends at the later of its host end and the end of the GPU work launched
  // by runtime calls inside its host span. Steps never overlap: before this rule, the five steps
  // summed to 818 ms over 484 ms of wall time (the GPU ran one step behind the host).
  int64_t previous_end = INT64_MIN, sum = 0;
  for (const analysis::Step& s : g.steps) {
    SCOPED_TRACE(s.step_num);
    ASSERT_TRUE(s.has_device_work());
    EXPECT_EQ(s.begin_ps, std::max(s.host_begin_ps, previous_end));
    EXPECT_EQ(s.end_ps, std::max(s.host_end_ps, s.launched_end_ps));
    EXPECT_GT(s.launched_end_ps, s.host_end_ps);  // the GPU finishes after the host marker closes
    previous_end = s.end_ps;
    sum += s.end_ps - s.begin_ps;
  }
  EXPECT_EQ(sum, g.steps.back().end_ps - g.steps.front().begin_ps);
  // Backward kernels, launched on the autograd thread, are grouped too: nearly all GPU work is.
  size_t device = 0, grouped = 0;
  for (EventIndex e = 0; e < p.num_events(); ++e) {
    if (!g.device_work_line[p.line_index(e)]) continue;
    ++device;
    grouped += g.group_of[e] >= 0;
  }
  EXPECT_GT(double(grouped), 0.95 * double(device));
}

TEST(PyTorchTestdata, TraceComparePairGivesStepsAndADiff) {
  REQUIRE_TESTDATA();
  const Profile base = load("trace_compare__base__base.json.gz");
  const Profile test = load("trace_compare__test__test.json.gz");
  const analysis::OverviewPage a = analysis::compute_overview_page(base), b = analysis::compute_overview_page(test);
  EXPECT_EQ(a.steps_found, 2u);
  EXPECT_EQ(b.steps_found, 2u);
  ASSERT_FALSE(a.steps.empty());
  ASSERT_FALSE(b.steps.empty());
  EXPECT_EQ(a.steps[0].step_num, 1009);
  const analysis::ProfileDiff diff =
      analysis::compute_profile_diff(a, analysis::compute_framework_op_stats(base, {}), b,
                                     analysis::compute_framework_op_stats(test, {}));
  EXPECT_EQ(diff.a_steps, a.steps.size());
  EXPECT_EQ(diff.b_steps, b.steps.size());
  EXPECT_GT(diff.step_time_ms.a, 0);
  ASSERT_FALSE(diff.ops.empty());
  // The test trace has backward ops the base lacks.
  bool added = false;
  for (const auto& op : diff.ops) added |= op.status == "added";
  EXPECT_TRUE(added);
}

TEST(PyTorchTestdata, EveryFileHasAnOverview) {
  REQUIRE_TESTDATA();
  for (const Expected& x : kFiles) {
    SCOPED_TRACE(x.file);
    const Profile p = load(x.file);
    const analysis::OverviewPage page = analysis::compute_overview_page(p);
    EXPECT_FALSE(page.steps.empty());
    EXPECT_EQ(page.environment.device_count, std::string_view(x.device).empty() ? 0u : 1u);
    double total = 0;
    for (double pct : page.breakdown_pct) total += pct;
    EXPECT_NEAR(total, 100.0, 0.5);
    EXPECT_FALSE(page.top_ops.empty());
  }
}

}  // namespace
}  // namespace mlprof::model
