// One row per rank: built PyTorch traces of a CPU job (gloo) in which rank 1 does 20 ms of
// extra work before each all_reduce, so every other rank waits 20 ms in it; the figures below
// follow from the traces' own times. Ranks are named from distributedInfo.rank, never from the
// file names (which here name another rank on purpose).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analysis/gpu_timeline/collective_mismatch.h"
#include "analysis/gpu_timeline/collectives.h"
#include "analysis/gpu_timeline/gpu_timeline.h"
#include "analysis/gpu_timeline/stragglers.h"
#include "analysis/input_pipeline_analyzer.h"
#include "analysis/kernel_stats.h"
#include "analysis/op_stats_ranks.h"
#include "analysis/overview_page.h"
#include "gpu_timeline_builder.h"
#include "model/pytorch/importer.h"

namespace mlprof::analysis {
namespace {

constexpr int kSteps = 4;
constexpr double kStepUs = 25000, kExtraUs = 20000;

struct RankTrace {
  int rank = 0;
  bool slow = false;
  std::vector<int> steps = {0, 1, 2, 3};
  int skip_call_in_step = -1;  // a step whose all_reduce this rank does not make
};

// Per step: aten::mm for 10 us, on the slow rank extra_work for 20 ms, then gloo:all_reduce,
// which every rank leaves at the same instant (11 us + 20 ms + 2 us into the step).
std::string trace(const RankTrace& r) {
  std::string events;
  auto add = [&](const std::string& cat, const std::string& name, double ts, double dur) {
    if (!events.empty()) events += ",\n";
    events += R"({"ph": "X", "cat": ")" + cat + R"(", "name": ")" + name + R"(", "pid": 1, "tid": 1, "ts": )" +
              std::to_string(ts) + R"(, "dur": )" + std::to_string(dur) + "}";
  };
  for (int s : r.steps) {
    const double t0 = 1000 + s * kStepUs;
    add("user_annotation", "ProfilerStep#" + std::to_string(s), t0, kStepUs - 100);
    add("cpu_op", "aten::mm", t0 + 1, 10);
    const double arrive = t0 + 11 + (r.slow ? kExtraUs : 0), leave = t0 + 11 + kExtraUs + 2;
    if (r.slow) add("user_annotation", "extra_work", t0 + 11, kExtraUs);
    if (s != r.skip_call_in_step) add("cpu_op", "gloo:all_reduce", arrive, leave - arrive);
  }
  return R"({"distributedInfo": {"backend": "gloo", "rank": )" + std::to_string(r.rank) +
         R"(, "world_size": 4}, "traceEvents": [)" + events + "]}";
}

model::Profile job(const std::vector<std::pair<std::string, RankTrace>>& files) {
  model::Profile p;
  for (const auto& [file, r] : files) {
    const std::string json = trace(r);
    std::string error;
    if (!model::import_pytorch_trace_bytes(json.data(), json.size(), file, &p, &error)) throw std::runtime_error(error);
  }
  return p;
}

// Files named after the other rank: the labels must come from distributedInfo.
model::Profile two_ranks() { return job({{"worker1.111", {0, false}}, {"worker0.222", {1, true}}}); }

TEST(RanksTable, OverviewHasOneRowPerRankNamedByDistributedInfo) {
  const model::Profile p = two_ranks();
  const OverviewPage page = compute_overview_page(p);
  ASSERT_EQ(page.ranks.size(), 2u);
  EXPECT_EQ(page.ranks[0].host, "rank 0");
  EXPECT_EQ(page.ranks[1].host, "rank 1");
  for (const RankStepRow& r : page.ranks) {
    EXPECT_EQ(r.steps, size_t(kSteps)) << r.host;
    EXPECT_NEAR(r.step_ms, (kStepUs - 100) / 1e3, 1e-6) << r.host;
  }
  const auto j = to_json(page)["ranks"];
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[1]["host"], "rank 1");
  EXPECT_NEAR(j[1]["step_ms"].get<double>(), 24.9, 1e-6);
  EXPECT_TRUE(j[1]["breakdown_ms"].contains("input"));
  EXPECT_EQ(to_json(page)["steps"][0]["host"], "rank 0");
}

// Each rank's row names the host its trace is read as (the file of the other rank here), so
// that the UI links a rank to its own trace, as op stats' rows do.
TEST(RanksTable, StepRowsNameEachRanksFile) {
  const model::Profile p = two_ranks();
  const auto overview = to_json(compute_overview_page(p))["ranks"];
  ASSERT_EQ(overview.size(), 2u);
  EXPECT_EQ(overview[0]["file"], "worker1.111");
  EXPECT_EQ(overview[1]["file"], "worker0.222");
  const auto input = to_json(compute_input_pipeline_analysis(p, analyze_steps(p)))["ranks"];
  ASSERT_EQ(input.size(), 2u);
  EXPECT_EQ(input[0]["file"], "worker1.111");
  EXPECT_EQ(input[1]["file"], "worker0.222");
}

TEST(RanksTable, InputPipelineHasOneRowPerRank) {
  const model::Profile p = two_ranks();
  const InputPipelineAnalysis a = compute_input_pipeline_analysis(p, analyze_steps(p));
  ASSERT_EQ(a.ranks.size(), 2u);
  EXPECT_EQ(a.ranks[0].host, "rank 0");
  EXPECT_NEAR(a.ranks[0].step_ms, 24.9, 1e-6);
  EXPECT_EQ(to_json(a)["ranks"].size(), 2u);
}

TEST(RanksTable, OneRankHasNoTable) {
  const model::Profile p = job({{"worker0.1", {0, false}}});
  EXPECT_TRUE(compute_overview_page(p).ranks.empty());
}

// Over the whole profile: rank 0 spends 4 x 20.002 ms in all_reduce and 4 x 10 us in mm;
// rank 1 4 x 20 ms in extra_work, 4 x 2 us in all_reduce and the same mm.
TEST(RanksTable, OpStatsHaveEachRanksTopOp) {
  const model::Profile p = two_ranks();
  const std::vector<OpStatsRankRow> rows = op_stats_rank_rows(p);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].host, "rank 0");
  EXPECT_EQ(rows[0].file, "worker1.111");
  EXPECT_EQ(rows[0].top_op, "gloo:all_reduce");
  EXPECT_NEAR(rows[0].top_self_ms, 80.008, 1e-6);
  EXPECT_NEAR(rows[0].host_self_ms, 80.048, 1e-6);
  EXPECT_NEAR(rows[0].top_self_pct, 100.0 * 80.008 / 80.048, 1e-6);
  EXPECT_EQ(rows[1].top_op, "extra_work");
  EXPECT_NEAR(rows[1].top_self_ms, 80.0, 1e-6);
  EXPECT_NEAR(rows[1].host_self_ms, 80.048, 1e-6);
  EXPECT_FALSE(rows[1].top_on_device);
  EXPECT_EQ(to_json(rows)[1]["top_op"], "extra_work");
}

TEST(CollectiveWaits, TheEarlyRankWaitsOutTheLateOnesExtraWork) {
  const model::Profile p = two_ranks();
  const StragglerAnalysis s = compute_stragglers(p, group_steps(p));
  ASSERT_EQ(s.straggler, 1);
  EXPECT_EQ(s.ranks[1].host, "rank 1");
  EXPECT_NEAR(s.ranks[1].late_ms, 20.0, 1e-6);
  EXPECT_TRUE(s.mismatches.empty());
  const std::vector<CollectiveRankWait> waits = collective_waits(s);
  ASSERT_EQ(waits.size(), 2u);
  // rank 0: 20.002 ms in all_reduce per step, 20 ms of it beyond rank 1's 0.002 ms.
  EXPECT_NEAR(waits[0].collectives_ms, 20.002, 1e-6);
  EXPECT_NEAR(waits[0].wait_ms, 20.0, 1e-6);
  EXPECT_NEAR(waits[0].wait_share_pct(), 100.0 * 20.0 / 20.002, 1e-6);
  EXPECT_NEAR(waits[1].collectives_ms, 0.002, 1e-6);
  EXPECT_NEAR(waits[1].wait_share_pct(), 0.0, 1e-9);
}

TEST(CollectiveMismatch, MissingCallAndStepsOfOneRankAreNamedAndTheRestCompared) {
  RankTrace skips{2, false};
  skips.skip_call_in_step = 3;
  RankTrace elsewhere{3, false};
  elsewhere.steps = {10, 11};
  const model::Profile p =
      job({{"a", {0, false}}, {"b", {1, true}}, {"c", skips}, {"d", elsewhere}});
  const StragglerAnalysis s = compute_stragglers(p, group_steps(p));
  ASSERT_EQ(s.mismatches.size(), 2u) << ::testing::PrintToString(s.mismatches);
  EXPECT_EQ(s.mismatches[0],
            "rank 3's steps 10-11 were run by no other rank, and it has none of steps 0-3, which up to 3 other "
            "ranks ran: left out of the comparison");
  EXPECT_EQ(s.mismatches[1],
            "rank 2 made 1 fewer gloo:all_reduce call than the other ranks in step 3: those calls are compared "
            "among the ranks that made them");
  // The calls that match still find rank 1, 20 ms late.
  ASSERT_GE(s.straggler, 0);
  EXPECT_EQ(s.ranks[size_t(s.straggler)].host, "rank 1");
  EXPECT_NEAR(s.ranks[size_t(s.straggler)].late_ms, 20.0, 1e-6);
  EXPECT_EQ(to_json(s)["mismatches"].size(), 2u);
}

TEST(CollectiveMismatch, ARankMissingSteps) {
  RankTrace shorter{2, false};
  shorter.steps = {0, 1};
  const model::Profile p = job({{"a", {0, false}}, {"b", {1, true}}, {"c", shorter}});
  const StragglerAnalysis s = compute_stragglers(p, group_steps(p));
  ASSERT_EQ(s.mismatches.size(), 1u) << ::testing::PrintToString(s.mismatches);
  EXPECT_EQ(s.mismatches[0], "rank 2 has no steps 2-3, which up to 2 other ranks ran: those steps compare the others");
  ASSERT_GE(s.straggler, 0);
  EXPECT_EQ(s.ranks[size_t(s.straggler)].host, "rank 1");
}

TEST(CollectiveMismatch, StepRanges) {
  EXPECT_EQ(step_ranges({}), "");
  EXPECT_EQ(step_ranges({3}), "3");
  EXPECT_EQ(step_ranges({3, 4, 5, 9, 11, 12}), "3-5, 9, 11-12");
}

// Kernel stats and op stats add up the whole profile: over several hosts they say so, over one
// they sum over nothing; hosts read apart and joined say the same as read together.
TEST(SummedWindow, SaysSummedOverHostsOnlyForSeveral) {
  constexpr const char* kSummed = "the whole profile, summed over its hosts";
  const model::Profile two = two_ranks(), one = job({{"worker0.1", {0, false}}});
  EXPECT_EQ(to_json(compute_framework_op_stats(two))["window"], kSummed);
  EXPECT_EQ(to_json(compute_framework_op_stats(one))["window"], "the whole profile");
  OpStatsTotals joined = op_stats_totals(one, false);
  EXPECT_EQ(to_json(finish_op_stats(joined))["window"], "the whole profile");
  joined.add(op_stats_totals(one, false));
  EXPECT_EQ(to_json(finish_op_stats(joined))["window"], kSummed);
  EXPECT_EQ(to_json(finish_op_stats(op_stats_totals(two, false, 1)))["window"], "the whole profile");

  testing::GpuTimelineBuilder b;
  b.kernel("sgemm", 7, 10, 100);
  model::Profile gpus;
  b.add_to(&gpus, "rank0");
  const KernelStatsTable single = compute_kernel_stats(gpus);
  EXPECT_EQ(to_json(single)["summary"]["window"], "the whole profile");
  b.add_to(&gpus, "rank1");
  EXPECT_EQ(to_json(compute_kernel_stats(gpus))["summary"]["window"], kSummed);
  KernelStatsJoin join;
  join.add(single);
  EXPECT_EQ(to_json(join.finish())["summary"]["window"], "the whole profile");
  join.add(single);
  EXPECT_EQ(to_json(join.finish())["summary"]["window"], kSummed);
}

// GPU pages name ranks as the other tools do, with the file beside; one row per rank first.
TEST(RanksTable, GpuTimelineRowsPerRankNamedByRecordedRank) {
  model::Profile p;
  for (int h = 0; h < 2; ++h) {
    testing::GpuTimelineBuilder b;
    // 100 us of work, a 100 us gap, 100 us more: a span of 300 us, a third of it idle; the
    // second rank's gap is 200 us (span 400 us, half idle).
    b.kernel("sgemm", 7, 10, 100);
    b.kernel("sgemm", 7, 210 + 100 * h, 100);
    b.add_to(&p, "rank" + std::to_string(1 - h));  // file names that say the other rank
  }
  p.hosts[0].rank = 0;
  p.hosts[1].rank = 1;
  GpuTimelineOptions o;
  o.scope = GpuScope::kWholeProfile;
  const GpuTimeline t = compute_gpu_timeline(p, group_steps(p), o);
  ASSERT_EQ(t.hosts.size(), 2u);
  EXPECT_EQ(t.hosts[0].host, "rank 0");
  EXPECT_EQ(t.hosts[0].file, "rank1");
  const auto j = to_json(t);
  ASSERT_EQ(j["ranks"].size(), 2u);
  EXPECT_EQ(j["ranks"][1]["host"], "rank 1");
  EXPECT_EQ(j["ranks"][1]["file"], "rank0");
  EXPECT_NEAR(j["ranks"][0]["span_ms"].get<double>(), 0.3, 1e-9);
  EXPECT_NEAR(j["ranks"][0]["idle_pct"].get<double>(), 100.0 / 3, 1e-6);
  EXPECT_NEAR(j["ranks"][1]["span_ms"].get<double>(), 0.4, 1e-9);
  EXPECT_NEAR(j["ranks"][1]["idle_pct"].get<double>(), 50.0, 1e-6);
  EXPECT_NEAR(j["ranks"][1]["computation_pct"].get<double>(), 50.0, 1e-6);  // of the same 400 us
  EXPECT_EQ(j["ranks"][1]["launches"], 2);
  EXPECT_EQ(j["hosts"][1]["host"], "rank 1");
}

}  // namespace
}  // namespace mlprof::analysis
