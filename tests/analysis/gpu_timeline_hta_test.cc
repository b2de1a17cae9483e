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

#include <filesystem>
#include <fstream>

#include "analysis/gpu_timeline.h"
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
