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
#include "model/pytorch/importer.h"
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
  const analysis::StepOpTimes a_ops = analysis::op_time_by_step(base, analysis::analyze_steps(base));
  const analysis::StepOpTimes b_ops = analysis::op_time_by_step(test, analysis::analyze_steps(test));
  const analysis::ProfileDiff diff = analysis::compute_profile_diff({a, a_ops}, {b, b_ops});
  EXPECT_EQ(diff.a_steps, a.steps.size());
  EXPECT_EQ(diff.b_steps, b.steps.size());
  EXPECT_GT(diff.step_time_ms.a, 0);
  ASSERT_FALSE(diff.ops.empty());
  // In step 1009, the one both analysed, the test trace runs All2All_Pooled_Req, the base not.
  bool added = false;
  for (const auto& op : diff.ops) added |= op.status == "added";
  EXPECT_TRUE(added);
}

// The diff of two files as `mlprof diff` computes it.
analysis::ProfileDiff diff_files(const std::string& a_file, const std::string& b_file) {
  const Profile a = load(a_file), b = load(b_file);
  const analysis::StepAnalysis a_steps = analysis::analyze_steps(a), b_steps = analysis::analyze_steps(b);
  const analysis::OverviewPage a_page = analysis::compute_overview_page(a), b_page = analysis::compute_overview_page(b);
  const analysis::StepOpTimes a_ops = analysis::op_time_by_step(a, a_steps), b_ops = analysis::op_time_by_step(b, b_steps);
  return analysis::compute_profile_diff({a_page, a_ops}, {b_page, b_ops});
}

const analysis::OpChange* find_op(const analysis::ProfileDiff& d, const std::string& name) {
  for (const auto& op : d.ops)
    if (op.name == name && !op.on_device) return &op;
  return nullptr;
}

// Both files hold steps 1009 and 1010, but the test trace's 1010 launched no kernel and is left
// out (§5.1): the diff compares step 1009 alone. Its window is 157.408 ms in both (read with
// python3 from the raw events: ProfilerStep#1009 starts at 1661938466265087 and the last GPU
// work launched inside it, correlation 1954286, ends 157408 us later).
TEST(PyTorchTestdata, DiffComparesTheStepsBothRunsAnalysed) {
  REQUIRE_TESTDATA();
  const analysis::ProfileDiff d = diff_files("trace_compare__base__base.json.gz", "trace_compare__test__test.json.gz");
  EXPECT_EQ(d.a_steps, 2u);
  EXPECT_EQ(d.b_steps, 1u);
  EXPECT_EQ(d.steps_compared, analysis::StepsCompared::kStepsInCommon);
  EXPECT_EQ(d.compared_step_nums, std::vector<int64_t>{1009});
  EXPECT_EQ(d.a_compared, 1u);
  EXPECT_EQ(d.b_compared, 1u);
  EXPECT_NEAR(d.step_time_ms.a, 157.408, 1e-6);
  EXPECT_NEAR(d.step_time_ms.b, 157.408, 1e-6);
  EXPECT_EQ(d.step_time_ms.significance, analysis::ChangeSignificance::kNone);
  const nlohmann::json j = analysis::to_json(d);
  EXPECT_EQ(j["steps_compared"]["basis"], "steps_in_common");
  EXPECT_EQ(j["steps_compared"]["text"], analysis::steps_compared_text(d));
}

// All2All_Pooled_Req runs once in the test trace (raw event: ts 1661938466370356, dur 311 us),
// inside the window of step 1009, B's one analysed step: 311 us per step, not 311 / 2 (the steps
// found).
TEST(PyTorchTestdata, DiffDividesOpTimeByTheComparedSteps) {
  REQUIRE_TESTDATA();
  const analysis::ProfileDiff d = diff_files("trace_compare__base__base.json.gz", "trace_compare__test__test.json.gz");
  const analysis::OpChange* op = find_op(d, "All2All_Pooled_Req");
  ASSERT_NE(op, nullptr);
  EXPECT_EQ(op->status, "added");
  EXPECT_NEAR(op->a_ms, 0.0, 1e-9);
  EXPECT_NEAR(op->b_ms, 0.311, 1e-9);
}

// aten::as_strided runs in both traces (raw events: two of 0 us each, at the same times), so it
// is no change, let alone "added"; no listed row is without change.
TEST(PyTorchTestdata, DiffListsOnlyOpsThatChanged) {
  REQUIRE_TESTDATA();
  const analysis::ProfileDiff d = diff_files("trace_compare__base__base.json.gz", "trace_compare__test__test.json.gz");
  EXPECT_EQ(find_op(d, "aten::as_strided"), nullptr);
  for (const auto& op : d.ops) {
    SCOPED_TRACE(op.name);
    EXPECT_NE(op.a_ms, op.b_ms);
  }
}

// The CPU-only trace has one step, ProfilerStep#551 (210.109 ms), while gloo:all_reduce runs 10
// times on two threads for 2.135 s over the whole profile. Only its two calls that start in the
// step count (raw events read with python3: 173.209713 + 170.471258 ms, no op nested in them).
// The Triton trace has no step markers: the figures do not compare, and the diff says so.
TEST(PyTorchTestdata, DiffCountsOpTimeInsideTheSteps) {
  REQUIRE_TESTDATA();
  const analysis::ProfileDiff d = diff_files("cpu_only__rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz",
                                             "triton_example__triton_example.json.gz");
  const analysis::OpChange* op = find_op(d, "gloo:all_reduce");
  ASSERT_NE(op, nullptr);
  EXPECT_NEAR(op->a_ms, 173.209713 + 170.471258, 1e-6);
  EXPECT_EQ(op->status, "removed");
  EXPECT_EQ(d.steps_compared, analysis::StepsCompared::kStepsAndWholeProfile);
  EXPECT_FALSE(d.comparable());
  EXPECT_FALSE(analysis::to_json(d)["steps_compared"]["comparable"].get<bool>());
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
