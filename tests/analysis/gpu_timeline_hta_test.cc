// The GPU timeline analyses on real PyTorch traces against Holistic Trace Analysis.
//
// Expected values: ../shared/testdata/hta_expected/<trace>.json, written by HolisticTraceAnalysis
// 0.6.1 run from its public source (github.com/facebookresearch/HolisticTraceAnalysis, tag
// v0.6.1) with Debian's Python packages:
//   t = Trace(trace_dir); t.load_traces(include_last_profiler_step=False, use_multiprocessing=False)
//   BreakdownAnalysis.get_temporal_breakdown(t), .get_idle_time_breakdown(t, 30, rank=R),
//   .get_gpu_kernel_breakdown(t), CommunicationAnalysis.get_comm_comp_overlap(t),
//   CudaKernelAnalysis.cuda_kernel_launch_stats(t, ranks=[R]),
//   TraceCounters.get_queue_length_summary(t, ranks=[R])
// with the traces' real ranks (DEFINITIONS.md there states the rules). mlprof's default scope
// is HTA's (the profile less its last ProfilerStep); every figure below is within 2 %.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "analysis/gpu_timeline/gpu_timeline.h"
#include "analysis/step_grouping.h"
#include "model/load_profile.h"

namespace mlprof::analysis {
namespace {

using nlohmann::json;

std::string testdata(const std::string& file) { return std::string(MLPROF_TESTDATA) + "/" + file; }

// Within 2 % of HTA's figure (and a hair for figures HTA rounded to integers or 2 decimals).
void expect_close(double actual, double expected, double slack, const std::string& what) {
  EXPECT_NEAR(actual, expected, 0.02 * std::abs(expected) + slack) << what;
}

struct Loaded {
  json hta;
  GpuTimeline timeline;
};

bool load(const std::string& trace, Loaded* out) {
  const std::string file = testdata("pytorch/" + trace + ".json.gz");
  const std::string expected = testdata("hta_expected/" + trace + ".json");
  if (!std::filesystem::exists(file) || !std::filesystem::exists(expected)) return false;
  std::ifstream in(expected);
  out->hta = json::parse(in);
  model::Profile p;
  model::LoadError error;
  EXPECT_TRUE(model::load_profile({file, "", ""}, &p, &error)) << error.path << ": " << error.problem;
  GpuTimelineOptions options;
  options.round_like_hta = true;  // HTA rounds sub-µs timestamps to whole µs (see gpu_activity.h)
  out->timeline = compute_gpu_timeline(p, group_steps(p), options);
  return true;
}

#define LOAD_OR_SKIP(trace, loaded) \
  if (!load(trace, &loaded)) GTEST_SKIP() << trace << " or its HTA figures not found (they are in ../shared/testdata)"

void expect_like_hta(const Loaded& l, const std::string& rank) {
  ASSERT_EQ(l.timeline.hosts.size(), 1u);
  const HostGpuTimeline& h = l.timeline.hosts[0];
  const json out = to_json(l.timeline)["hosts"][0];

  // 1. Temporal breakdown.
  const json& tb = l.hta["temporal_breakdown"][rank];
  const json& b = out["gpu_time_breakdown"];
  expect_close(b["span_us"], tb["kernel_time_us (span first kernel start..last kernel end)"], 1, "span");
  expect_close(b["idle_pct"], tb["idle_time_pctg"], 0.01, "idle_pct");
  expect_close(b["compute_pct"], tb["compute_time_pctg"], 0.01, "compute_pct");
  expect_close(b["non_compute_pct"], tb["non_compute_time_pctg"], 0.01, "non_compute_pct");
  const json& inclusive = l.hta["gpu_kernel_breakdown"]["derived_not_hta"]["inclusive_per_type"];
  for (const char* kind : {"computation", "communication", "memory"}) {
    std::string upper = kind;
    for (char& c : upper) c = char(std::toupper(c));
    expect_close(b["kernel_type_pct"][kind], inclusive[upper]["pct_of_union_busy"], 0.01,
                 std::string("kernel_type_pct ") + kind);
  }

  // 2. Idle time by cause, per stream.
  const json& per_stream = l.hta["idle_time_breakdown"]["per_rank"][rank]["per_stream"];
  const json& streams = out["gpu_idle_time"]["streams"];
  ASSERT_EQ(streams.size(), per_stream.size());
  for (const json& s : streams) {
    const std::string id = std::to_string(s["stream"].get<int64_t>());
    ASSERT_TRUE(per_stream.contains(id)) << "stream " << id;
    for (const char* cause : {"host_wait", "kernel_wait", "other"}) {
      const json& e = per_stream[id];
      const double expected = e.contains(cause) ? e[cause]["idle_time_us"].get<double>() : 0.0;
      expect_close(s[std::string(cause) + "_us"], expected, 1, "stream " + id + " " + cause);
      if (e.contains(cause)) {
        EXPECT_EQ(s[std::string(cause) + "_gaps"], e[cause]["n_intervals"]) << "stream " << id << " " << cause;
      }
    }
  }

  // 3. Overlap (null when there is no communication, where HTA divides 0 by 0).
  const json& overlap = l.hta["comm_comp_overlap"][rank]["comp_comm_overlap_pctg"];
  if (overlap.is_null()) EXPECT_TRUE(out["comm_compute_overlap"]["overlap_pct"].is_null());
  else expect_close(out["comm_compute_overlap"]["overlap_pct"], overlap, 0.01, "overlap_pct");

  // 4. Launch statistics.
  const json& ls = l.hta["cuda_kernel_launch_stats"]["per_rank"][rank];
  const json& k = out["kernel_launch_stats"];
  EXPECT_EQ(k["launches"], ls["n_launch_kernel_pairs"]);
  expect_close(k["short_kernels"], ls["short_kernels (cpu_dur<=runtime_cutoff & gpu_dur<cpu_dur)"], 0, "short");
  expect_close(k["runtime_outliers"], ls["runtime_outliers (cpu_dur>runtime_cutoff)"], 0, "runtime outliers");
  expect_close(k["long_delay_kernels"], ls["launch_delay_outliers (launch_delay>launch_delay_cutoff)"], 0, "delays");
  expect_close(k["median_launch_delay_us"], ls["launch_delay_median_us"], 0.5, "median delay");
  expect_close(k["mean_launch_delay_us"], ls["launch_delay_mean_us"], 0.5, "mean delay");
  expect_close(k["max_launch_delay_us"], ls["launch_delay_max_us"], 0.5, "max delay");

  // 6. Queue length per stream: the maximum, HTA's mean (at the change points) and the
  // time-weighted mean the expected file adds.
  const json& ql = l.hta["queue_length_summary"]["per_rank_stream"][rank];
  const json& tw = l.hta["queue_length_summary"]["extra_not_hta_time_weighted_mean"][rank];
  for (const json& q : out["gpu_queue_length"]["streams"]) {
    const std::string id = std::to_string(q["stream"].get<int64_t>());
    ASSERT_TRUE(ql.contains(id)) << "stream " << id;
    EXPECT_EQ(q["max"], ql[id]["max"]) << "stream " << id;
    EXPECT_EQ(q["changes"], ql[id]["count"]) << "stream " << id;
    expect_close(q["mean_at_changes"], ql[id]["mean"], 0.001, "queue mean at changes, stream " + id);
    expect_close(q["mean"], tw[id], 0.001, "time-weighted queue mean, stream " + id);
  }
  EXPECT_NE(h.scope_note.find("less its last step"), std::string::npos) << h.scope_note;
}

TEST(GpuTimelineVsHta, NcclParserConfig) {
  Loaded l;
  LOAD_OR_SKIP("nccl_parser_config__nccl_data", l);
  expect_like_hta(l, "0");
}

TEST(GpuTimelineVsHta, DfIndexResolver) {
  Loaded l;
  LOAD_OR_SKIP("df_index_resolver__df_index_resolver", l);
  expect_like_hta(l, "1");
}

TEST(GpuTimelineVsHta, TraceCompareBase) {
  Loaded l;
  LOAD_OR_SKIP("trace_compare__base__base", l);
  expect_like_hta(l, "1");
}

TEST(GpuTimelineVsHta, TraceCompareTest) {
  Loaded l;
  LOAD_OR_SKIP("trace_compare__test__test", l);
  expect_like_hta(l, "1");
}

// Timestamps since the epoch in ns (1712195495519695.800 us): HTA's float64 resolves a quarter
// microsecond there, and its rounding (start up, start + duration down) follows the float64
// values. With --hta-rounding mlprof reproduces its temporal breakdown to the microsecond
// (exact rounding gave 11,307 us idle and 371,264 us compute).
TEST(GpuTimelineVsHta, NanosecondTimestampsRoundAsHtaDoes) {
  Loaded l;
  LOAD_OR_SKIP("ns_resolution_trace__rank-0.Apr_03_18_51_38.1102.pt.trace", l);
  const json& tb = l.hta["temporal_breakdown"]["0"];
  const json b = to_json(l.timeline)["hosts"][0]["gpu_time_breakdown"];
  EXPECT_EQ(b["span_us"].get<double>(), tb["kernel_time_us (span first kernel start..last kernel end)"].get<double>());
  EXPECT_EQ(b["idle_us"].get<double>(), tb["idle_time_us"].get<double>());
  EXPECT_EQ(b["compute_us"].get<double>(), tb["compute_time_us"].get<double>());
}

}  // namespace
}  // namespace mlprof::analysis

namespace mlprof::analysis {
namespace {

// TensorFlow's 8-GPU XSpace (BERT, GPUs 1, 4 and 6 hold work) over the whole profile. HTA cannot
// read XSpace; the expected values come from an independent implementation of HTA's rules
// (DEFINITIONS.md) in Python over the file decoded by protoc:
//   protoc --decode=tensorflow.profiler.XSpace src/format/proto/xplane.proto
//     < ../shared/testdata/tensorflow/gpu_multi_worker.xplane.pb > tf.txt   (one line)
//   python3 tests/analysis/xspace_gpu_reference.py tf.txt
// TensorFlow's host events that launch work carry the kernel's name and its correlation_id.
TEST(GpuTimelineOnXSpace, TensorFlowMultiGpuFile) {
  const std::string file = testdata("tensorflow/gpu_multi_worker.xplane.pb");
  if (!std::filesystem::exists(file)) GTEST_SKIP() << file << " not found (the real profiles are in ../shared/testdata)";
  model::Profile p;
  model::LoadError error;
  ASSERT_TRUE(model::load_profile({file, "", ""}, &p, &error)) << error.problem;
  GpuTimelineOptions options;
  options.scope = GpuScope::kWholeProfile;
  const GpuTimeline t = compute_gpu_timeline(p, group_steps(p), options);
  ASSERT_EQ(t.hosts.size(), 1u);
  const HostGpuTimeline& h = t.hosts[0];
  const GpuTimeBreakdown& b = *h.breakdown;
  EXPECT_NEAR(double(b.span_ps) / 1e6, 953336.862, 0.001);
  EXPECT_NEAR(b.idle_pct(), 96.846040, 1e-5);
  EXPECT_NEAR(b.compute_pct(), 3.114403, 1e-5);
  EXPECT_NEAR(b.kind_pct(GpuWorkKind::kComputation), 98.745781, 1e-5);
  EXPECT_NEAR(b.kind_pct(GpuWorkKind::kMemory), 1.567644, 1e-5);
  ASSERT_EQ(b.devices.size(), 3u);
  EXPECT_EQ(b.devices[0].device_ordinal, 1u);
  EXPECT_EQ(b.devices[2].device_ordinal, 6u);

  struct StreamFigures {
    int64_t id;
    double host_wait_us, kernel_wait_us, other_us;
    int64_t queue_max;
  };
  const StreamFigures expected[] = {
      {123, 13383.630, 0, 0, 1},          {63, 3161.071, 0, 0, 1},
      {134, 2047.987, 2992.119, 0, 84},   {135, 95204.184, 41.536, 226.430, 5},
      {136, 4972.261, 27.136, 136.511, 5}, {91, 3099.632, 0, 0, 1},
      {142, 3277.808, 3105.742, 61.439, 97}, {143, 477688.272, 44.448, 210.206, 5},
      {144, 4245.130, 24.864, 153.343, 5}};
  ASSERT_EQ(h.idle->streams.size(), std::size(expected));
  for (size_t i = 0; i < std::size(expected); ++i) {
    const StreamIdleTime& s = h.idle->streams[i];
    EXPECT_EQ(s.stream_id, expected[i].id);
    EXPECT_NEAR(double(s.cause_ps[size_t(IdleCause::kHostWait)]) / 1e6, expected[i].host_wait_us, 0.001) << s.stream_id;
    EXPECT_NEAR(double(s.cause_ps[size_t(IdleCause::kKernelWait)]) / 1e6, expected[i].kernel_wait_us, 0.001) << s.stream_id;
    EXPECT_NEAR(double(s.cause_ps[size_t(IdleCause::kOther)]) / 1e6, expected[i].other_us, 0.001) << s.stream_id;
    EXPECT_EQ((*h.queue)[i].max, expected[i].queue_max) << s.stream_id;
  }
  EXPECT_FALSE(h.overlap->overlap_pct().has_value());  // no collectives on these GPUs
  EXPECT_EQ(h.launches->launches, 1556u);
  EXPECT_EQ(h.launches->short_kernels, 566u);
  EXPECT_EQ(h.launches->long_delay_kernels, 928u);
  EXPECT_NEAR(h.launches->median_launch_delay_us, 361.389, 0.001);
}

}  // namespace
}  // namespace mlprof::analysis

namespace mlprof::analysis {
namespace {

// Meta's two MTIA traces against HTA's own output. Expected values: HolisticTraceAnalysis 0.6.1
// (tag v0.6.1, commit c925565fbe1e796433d3b5506f3ee925811d4569) run from its public source with
// Debian's Python packages (pandas 1.5.3) on 2026-11-28, one trace per folder:
//   t = Trace(trace_dir); t.load_traces(include_last_profiler_step=False, use_multiprocessing=False)
//   BreakdownAnalysis.get_temporal_breakdown(t)
//   BreakdownAnalysis.get_idle_time_breakdown(t, 30, rank=0, show_idle_interval_stats=True)
//     (gap counts: the `count` of its interval statistics)
//   BreakdownAnalysis.get_gpu_kernel_breakdown(t, include_memory_kernels=True)
//   CudaKernelAnalysis.cuda_kernel_launch_stats(t, ranks=[0])
// Neither trace has two ProfilerSteps, so both are measured whole. HTA's GPU events are those
// with a stream: the DMA engine's queue (dma_request on thread 801 "DMA_REQUEST", no stream arg)
// is not one, and mlprof leaves it out too.
struct MtiaStreamIdle {
  int64_t stream;
  double host_wait_us, kernel_wait_us, other_us;  // HTA's sums of gaps (they go negative
  size_t host_wait_gaps, kernel_wait_gaps, other_gaps;  // where stream items overlap)
};

struct MtiaHtaFigures {
  double span_us, idle_us, compute_us;  // temporal breakdown
  double memory_union_us;               // gpu kernel breakdown: MEMORY and MEMORY overlapping others
  // Launch statistics.
  size_t launches, short_kernels, runtime_outliers, long_delays;
  double median_delay_us, mean_delay_us, max_delay_us;
};

GpuTimeline mtia_timeline(const std::string& file) {
  model::Profile p;
  model::LoadError error;
  EXPECT_TRUE(model::load_profile({file, "", ""}, &p, &error)) << error.path << ": " << error.problem;
  GpuTimelineOptions options;
  options.round_like_hta = true;  // nanosecond timestamps: HTA rounds them to whole µs
  return compute_gpu_timeline(p, group_steps(p), options);
}

void expect_mtia_like_hta(const GpuTimeline& t, const MtiaHtaFigures& hta, const std::vector<MtiaStreamIdle>& streams) {
  ASSERT_EQ(t.hosts.size(), 1u);
  const HostGpuTimeline& h = t.hosts[0];
  const GpuTimeBreakdown& b = *h.breakdown;
  auto us = [](int64_t ps) { return double(ps) / 1e6; };
  EXPECT_EQ(us(b.span_ps), hta.span_us);
  EXPECT_EQ(us(b.idle_ps()), hta.idle_us);
  EXPECT_EQ(us(b.times.union_ps[size_t(GpuWorkKind::kComputation)]), hta.compute_us);
  EXPECT_EQ(us(b.times.union_ps[size_t(GpuWorkKind::kMemory)]), hta.memory_union_us);
  EXPECT_EQ(us(b.times.union_ps[size_t(GpuWorkKind::kCommunication)]), 0.0);

  ASSERT_EQ(h.idle->streams.size(), streams.size());
  for (const MtiaStreamIdle& e : streams) {
    auto it = std::find_if(h.idle->streams.begin(), h.idle->streams.end(),
                           [&](const StreamIdleTime& s) { return s.stream_id == e.stream; });
    ASSERT_NE(it, h.idle->streams.end()) << "stream " << e.stream;
    EXPECT_EQ(us(it->cause_ps[size_t(IdleCause::kHostWait)]), e.host_wait_us) << "stream " << e.stream;
    EXPECT_EQ(us(it->cause_ps[size_t(IdleCause::kKernelWait)]), e.kernel_wait_us) << "stream " << e.stream;
    EXPECT_EQ(us(it->cause_ps[size_t(IdleCause::kOther)]), e.other_us) << "stream " << e.stream;
    EXPECT_EQ(it->gaps[size_t(IdleCause::kHostWait)], e.host_wait_gaps) << "stream " << e.stream;
    EXPECT_EQ(it->gaps[size_t(IdleCause::kKernelWait)], e.kernel_wait_gaps) << "stream " << e.stream;
    EXPECT_EQ(it->gaps[size_t(IdleCause::kOther)], e.other_gaps) << "stream " << e.stream;
  }

  const KernelLaunchStats& k = *h.launches;
  EXPECT_EQ(k.launches, hta.launches);
  EXPECT_EQ(k.short_kernels, hta.short_kernels);
  EXPECT_EQ(k.runtime_outliers, hta.runtime_outliers);
  EXPECT_EQ(k.long_delay_kernels, hta.long_delays);
  EXPECT_EQ(k.median_launch_delay_us, hta.median_delay_us);
  EXPECT_NEAR(k.mean_launch_delay_us, hta.mean_delay_us, 1e-6);
  EXPECT_EQ(k.max_launch_delay_us, hta.max_delay_us);
}

#define MTIA_FILE_OR_SKIP(path)                                                                          \
  const std::string file = testdata(path);                                                               \
  if (!std::filesystem::exists(file)) GTEST_SKIP() << file << " not found (the real profiles are in ../shared/testdata)"

// Training on one MTIA (streams 1 and 102). Every figure is HTA's exactly.
TEST(GpuTimelineVsHta, MtiaTrainingSingleRank) {
  MTIA_FILE_OR_SKIP("wild/hta/mtia_trace_single_rank__mtia_rank_0.json.gz");
  const GpuTimeline t = mtia_timeline(file);
  // HTA: kernel_time 13328071, idle 5649476, compute 7305597, non_compute 372998 (all of it
  // MEMORY: the kernel breakdown's 372998); runFunction launches 3453, all over 50 µs.
  expect_mtia_like_hta(t, {13328071, 5649476, 7305597, 372998, 3453, 0, 3453, 0, 0, 0.020272227048942947, 14},
                       {{1, 417937, -10478, 5200945, 1365, 6899, 17364}, {102, 445, -9, 2540592, 1, 6, 40}});
  ASSERT_EQ(t.hosts.size(), 1u);
  EXPECT_NE(t.hosts[0].scope_note.find("1 DMA queue(s) left out"), std::string::npos) << t.hosts[0].scope_note;
}

// Inference on one MTIA (streams 101-112). HTA rounds the start up and the end down, which gives
// 207 short event_record items a length of -1 µs. HTA's merge lets such an item, where nothing
// else covers it, take 1 µs off the busy time: 31 times in the union of all items, 39 in the
// union of computation (counted with HTA's own merge_kernel_intervals on its loaded frame).
// mlprof counts them as empty, so its idle time is 31 µs shorter and its compute 39 µs longer.
// HTA's kernel breakdown sweeps those items too: where one lies inside a copy its end comes
// before its start, the running sum reads MEMORY (4) less 1 = 3, and 1 µs of copy-only time is
// labelled "COMPUTATION overlapping COMMUNICATION" (no collective runs). Hence mlprof's copy
// union, 39359 µs, is HTA's MEMORY 6903 + COMPUTATION overlapping MEMORY 32455 + that 1 µs,
// and equals HTA's merge_kernel_intervals over the MEMORY items.
TEST(GpuTimelineVsHta, MtiaInference) {
  MTIA_FILE_OR_SKIP("wild/hta_extra/hta__mtia_inference_trace_mtia_inference_rank_0.json.gz");
  const GpuTimeline t = mtia_timeline(file);
  const double hta_idle_us = 19235, hta_compute_us = 381972;
  const double hta_lone_negative_all = 31, hta_lone_negative_compute = 39;
  expect_mtia_like_hta(t,
                       {443275, hta_idle_us - hta_lone_negative_all, hta_compute_us + hta_lone_negative_compute,
                        6903 + 32455 + 1, 73, 0, 2, 72, 6926, 7273.041095890411, 20076},
                       {{101, 278746, 244, 30588, 16, 54, 10},  {102, 224017, 486, 154663, 25, 112, 24},
                        {103, 262091, 167, 69166, 6, 35, 12},   {104, 304943, 397, 94379, 18, 91, 19},
                        {105, 361836, 176, 217, 4, 39, 3},      {106, 314118, 352, 24672, 9, 76, 10},
                        {107, 242303, 323, 8271, 4, 57, 10},    {108, 228224, 616, 60202, 14, 130, 17},
                        {109, 202237, 494, 17004, 12, 101, 12}, {110, 232683, 400, 32123, 10, 83, 14},
                        {111, 208072, 576, 91676, 17, 124, 14}, {112, 299058, 432, 36813, 8, 97, 14}});
}

}  // namespace
}  // namespace mlprof::analysis
